#include "colossalai/job/rendezvous_check.hpp"

#include "colossalai/util/integer.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <random>

namespace colossalai::job {

namespace {

// The program, read by `python -c`. Its options (rendezvous_arguments): `--listen PORT` with
// `--token`, `--stdin` (stop at a line or EOF there) and `--expect N` (stop after N answers);
// `--connect NAME --port PORT` with `--token` (compare the answer; without it, only connect)
// and `--retry` (refused, no route: again every 0.2 s within the bound); `--own-name` with
// `--interface-given` and `--hostname NAME` (the name to check instead of gethostname()); and
// `--bound-ms` for all. The listener binds as torch's TCPStore (IPv6 dual-stack, else IPv4;
// SO_REUSEADDR: a port in TIME_WAIT is free, one a live socket listens on is not), answers each
// connection with the token and closes it; the holder of a port in use is the process with a
// descriptor on a listening socket of that port (/proc/net/tcp{,6}, /proc/PID/fd: only what the
// node's user may see). A node connects to the addresses getaddrinfo gives, in order, as
// torchrun: the first that answers passes; else the first failure is reported, or a foreign
// answer if one came (another token, or none within the bound on a connection the other end
// accepted: an earlier job's store, which waits for its client to speak first). The own name is
// checked at its first address, the one gloo takes.
constexpr std::string_view program = R"PYTHON(import errno, ipaddress, os, select, socket, sys, time
a = sys.argv[1:]
o = {}
while a:
    k = a.pop(0)
    o[k] = True if k in ("--retry", "--stdin", "--own-name", "--interface-given") else a.pop(0)
end = time.monotonic() + int(o["--bound-ms"]) / 1000.0
def say(*w):
    sys.stdout.write("\036colossalai-rdzv " + " ".join(str(x) if str(x) else "-" for x in w) + "\n")
    sys.stdout.flush()
def en(e):
    return errno.errorcode.get(e.errno, "E?") if e.errno else "E?"
def left():
    return max(end - time.monotonic(), 0.001)
ok = True
if "--own-name" in o:
    n = o.get("--hostname") or socket.gethostname()
    g = "warn" if "--interface-given" in o or os.environ.get("GLOO_SOCKET_IFNAME") else "fail"
    try:
        h = socket.getaddrinfo(n, None, 0, socket.SOCK_STREAM)[0][4][0]
    except (socket.gaierror, UnicodeError):
        h = ""
    if not h or ipaddress.ip_address(h.split("%")[0]).is_loopback:
        say("own-name-loopback", n, h, "", g)
        ok = ok and g == "warn"
def holder(port):
    nodes = set()
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(f) as t:
                for l in list(t)[1:]:
                    p = l.split()
                    if p[3] == "0A" and int(p[1].rsplit(":", 1)[1], 16) == port:
                        nodes.add("socket:[" + p[9] + "]")
        except (OSError, IndexError, ValueError):
            pass
    for pid in os.listdir("/proc") if nodes else []:
        try:
            for fd in os.listdir("/proc/" + pid + "/fd"):
                if os.readlink("/proc/" + pid + "/fd/" + fd) in nodes:
                    with open("/proc/" + pid + "/cmdline", "rb") as c:
                        w = c.read().split(b"\0")
                    return [pid, " ".join(b" ".join(w).decode("utf-8", "replace").split())[:200]]
        except (OSError, ValueError):
            pass
    return []
def listen(port):
    err = None
    for f, h in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            s = socket.socket(f, socket.SOCK_STREAM)
        except OSError as e:
            err = err or e
            continue
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if f == socket.AF_INET6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind((h, port))
            s.listen(4096)
            return s
        except OSError as e:
            s.close()
            if err is None or e.errno == errno.EADDRINUSE:
                err = e
    if err.errno == errno.EADDRINUSE:
        say("port-in-use", "", "", port, *holder(port))
    else:
        say("cannot-listen", "", "", port, en(err))
    return None
def serve(port):
    s = listen(port)
    if s is None:
        return False
    say("listening", "", "", port)
    s.setblocking(False)
    w = (o["--token"] + "\n").encode()
    n = int(o.get("--expect", "-1"))
    r = [s, sys.stdin] if "--stdin" in o else [s]
    while n != 0 and time.monotonic() < end:
        if sys.stdin in select.select(r, [], [], left())[0]:
            break
        try:
            c = s.accept()[0]
        except OSError:
            continue
        try:
            c.settimeout(1)
            c.sendall(w)
            n -= 1
        except OSError:
            pass
        c.close()
    return n <= 0 if "--expect" in o else True
def attempt(name, port, token):
    try:
        ais = socket.getaddrinfo(name, port, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        return ["unresolved", name, "", port, str(e.args[-1])]
    first = None
    for f, t, p, _, sa in ais:
        r = None
        c = False
        s = socket.socket(f, t, p)
        try:
            s.settimeout(left())
            s.connect(sa)
            c = True
            if token is None:
                r = ["reached", name, sa[0], port]
            else:
                b = b""
                while not b.endswith(b"\n") and len(b) < 256:
                    s.settimeout(left())
                    d = s.recv(256)
                    if not d:
                        break
                    b += d
                r = ["answered" if b == (token + "\n").encode() else "foreign", name, sa[0], port]
        except socket.timeout:
            r = ["foreign" if c else "timed-out", name, sa[0], port]
        except OSError as e:
            if e.errno == errno.ECONNREFUSED:
                r = ["refused", name, sa[0], port]
            elif e.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
                r = ["no-route", name, sa[0], port, en(e)]
            elif r is None:
                r = ["cannot-connect", name, sa[0], port, en(e)]
        finally:
            s.close()
        if r[0] in ("answered", "reached"):
            return r
        if first is None or r[0] == "foreign":
            first = r
    return first or ["unresolved", name, "", port, "no address"]
def connect(name, port, token):
    while True:
        r = attempt(name, port, token)
        if "--retry" in o and r[0] in ("refused", "no-route") and time.monotonic() + 0.2 < end:
            time.sleep(0.2)
            continue
        say(*r)
        return r[0] in ("answered", "reached")
if "--listen" in o:
    ok = serve(int(o["--listen"])) and ok
else:
    ok = connect(o["--connect"], int(o["--port"]), o.get("--token")) and ok
sys.exit(0 if ok else 1)
)PYTHON";

// Each outcome's word on the program's line.
struct OutcomeWord {
    RendezvousOutcome outcome;
    std::string_view word;
};
constexpr std::array outcome_words{
    OutcomeWord{RendezvousOutcome::listening, "listening"},
    OutcomeWord{RendezvousOutcome::answered, "answered"},
    OutcomeWord{RendezvousOutcome::reached, "reached"},
    OutcomeWord{RendezvousOutcome::port_in_use, "port-in-use"},
    OutcomeWord{RendezvousOutcome::cannot_listen, "cannot-listen"},
    OutcomeWord{RendezvousOutcome::foreign, "foreign"},
    OutcomeWord{RendezvousOutcome::refused, "refused"},
    OutcomeWord{RendezvousOutcome::timed_out, "timed-out"},
    OutcomeWord{RendezvousOutcome::no_route, "no-route"},
    OutcomeWord{RendezvousOutcome::cannot_connect, "cannot-connect"},
    OutcomeWord{RendezvousOutcome::unresolved, "unresolved"},
    OutcomeWord{RendezvousOutcome::own_name_loopback, "own-name-loopback"},
};

std::string_view outcome_word(RendezvousOutcome outcome) {
    for (const OutcomeWord& entry : outcome_words) {
        if (entry.outcome == outcome) {
            return entry.word;
        }
    }
    return "";
}

std::string_view or_dash(std::string_view field) {
    return field.empty() ? "-" : field;
}

std::string_view from_dash(std::string_view field) {
    return field == "-" ? "" : field;
}

// The next space-separated word of `text`, taken off its front.
std::string_view take_word(std::string_view& text) {
    std::size_t space = text.find(' ');
    std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    return word;
}

// What a node tried: `'NAME' (ADDRESS) port PORT`, the address left out when there is none.
std::string target(const RendezvousResult& result) {
    std::string name = util::escape_for_message(result.name);
    if (result.address.empty() || result.address == result.name) {
        return fmt::format("'{}' port {}", name, result.port);
    }
    return fmt::format("'{}' ({}) port {}", name, util::escape_for_message(result.address),
                       result.port);
}

} // namespace

RendezvousProbe probe_for(const RendezvousPlan& plan, std::size_t rank, ProbeStart start) {
    RendezvousProbe probe;
    probe.bound = plan.bound;
    if (plan.own_name) {
        probe.own_name = OwnNameCheck{plan.interface_given, std::nullopt};
    }
    bool together = start == ProbeStart::together;
    if (plan.listener == rank) {
        std::optional<int> expect;
        if (together) {
            expect = static_cast<int>(plan.nodes > 0 ? plan.nodes - 1 : 0);
        }
        probe.role = RendezvousListen{plan.port, !together, expect};
        probe.token = plan.token;
        return probe;
    }
    probe.role = RendezvousConnect{plan.address, plan.port, together};
    if (plan.listener) {
        probe.token = plan.token;
    }
    return probe;
}

std::string fresh_rendezvous_token() {
    std::random_device random;
    std::uniform_int_distribution<unsigned> digit(0, 15);
    std::string token;
    for (int i = 0; i < 16; ++i) {
        token += "0123456789abcdef"[digit(random)];
    }
    return token;
}

std::string_view rendezvous_program() {
    return program;
}

namespace {

// The program's arguments for `probe`: each fixed word through `word`, the connection's address
// and the token as `address` and `token` give them.
template <typename Word>
std::vector<std::string> arguments(const RendezvousProbe& probe, Word word,
                                   const std::string& address, const std::string& token) {
    std::vector<std::string> words;
    if (const auto* listen = std::get_if<RendezvousListen>(&probe.role)) {
        words = {word("--listen"), word(std::to_string(listen->port))};
        if (listen->stop_on_stdin) {
            words.emplace_back(word("--stdin"));
        }
        if (listen->expect) {
            words.insert(words.end(), {word("--expect"), word(std::to_string(*listen->expect))});
        }
    } else {
        const auto& connect = std::get<RendezvousConnect>(probe.role);
        words = {word("--connect"), address, word("--port"), word(std::to_string(connect.port))};
        if (connect.retry) {
            words.emplace_back(word("--retry"));
        }
    }
    if (probe.token) {
        words.insert(words.end(), {word("--token"), token});
    }
    if (probe.own_name) {
        words.emplace_back(word("--own-name"));
        if (probe.own_name->interface_given) {
            words.emplace_back(word("--interface-given"));
        }
        if (probe.own_name->hostname) {
            words.insert(words.end(), {word("--hostname"), word(*probe.own_name->hostname)});
        }
    }
    words.insert(words.end(), {word("--bound-ms"), word(std::to_string(probe.bound.count()))});
    return words;
}

} // namespace

std::vector<std::string> rendezvous_arguments(const RendezvousProbe& probe) {
    const auto* connect = std::get_if<RendezvousConnect>(&probe.role);
    return arguments(
        probe, [](std::string value) { return value; },
        connect != nullptr ? connect->address : std::string(), probe.token.value_or(""));
}

std::string rendezvous_shell_command(const std::string& python, const RendezvousProbe& probe,
                                     std::string_view program_variable, const ShellWords& given) {
    const auto* connect = std::get_if<RendezvousConnect>(&probe.role);
    std::string address = given.address.value_or(
        util::shell_quote(connect != nullptr ? connect->address : std::string()));
    std::string token = given.token.value_or(util::shell_quote(probe.token.value_or("")));
    std::string command =
        fmt::format("{} -I -S -c \"${}\"", util::shell_quote(python), program_variable);
    for (const std::string& word : arguments(
             probe, [](const std::string& value) { return util::shell_quote(value); }, address,
             token)) {
        command += ' ' + word;
    }
    return command;
}

std::vector<std::string> rendezvous_command(const std::string& python,
                                            const RendezvousProbe& probe) {
    std::vector<std::string> argv{python, "-I", "-S", "-c", std::string(program)};
    std::vector<std::string> arguments = rendezvous_arguments(probe);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return argv;
}

std::optional<RendezvousResult> parse_rendezvous_line(std::string_view text) {
    if (text.starts_with(rendezvous_marker)) {
        text.remove_prefix(rendezvous_marker.size());
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    std::string_view word = take_word(text);
    const auto* entry = std::find_if(outcome_words.begin(), outcome_words.end(),
                                     [word](const OutcomeWord& e) { return e.word == word; });
    if (entry == outcome_words.end()) {
        return std::nullopt;
    }
    RendezvousResult result;
    result.outcome = entry->outcome;
    result.name = from_dash(take_word(text));
    result.address = from_dash(take_word(text));
    std::string_view port = take_word(text);
    if (port != "-") {
        std::optional<int> number = util::parse_integer<int>(port, {1, 65535});
        if (!number) {
            return std::nullopt;
        }
        result.port = *number;
    }
    std::string_view detail = text;
    switch (result.outcome) {
    case RendezvousOutcome::port_in_use:
        if (!detail.empty()) {
            std::string_view pid = take_word(detail);
            std::optional<int> number =
                util::parse_integer<int>(pid, {1, std::numeric_limits<int>::max()});
            if (!number) {
                return std::nullopt;
            }
            result.holder = PortHolder{*number, std::string(detail)};
        }
        break;
    case RendezvousOutcome::own_name_loopback:
        if (detail != "fail" && detail != "warn") {
            return std::nullopt;
        }
        result.warning = detail == "warn";
        break;
    default:
        result.error = from_dash(detail);
        break;
    }
    return result;
}

std::string rendezvous_line(const RendezvousResult& result) {
    std::string detail = result.error;
    if (result.holder) {
        detail = fmt::format("{} {}", result.holder->pid, result.holder->command);
        while (!detail.empty() && detail.back() == ' ') {
            detail.pop_back();
        }
    } else if (result.outcome == RendezvousOutcome::own_name_loopback) {
        detail = result.warning ? "warn" : "fail";
    }
    std::string line =
        fmt::format("{} {} {} {}", outcome_word(result.outcome), or_dash(result.name),
                    or_dash(result.address), result.port == 0 ? "-" : std::to_string(result.port));
    if (!detail.empty()) {
        line += " " + detail;
    }
    return line;
}

bool is_failure(const RendezvousResult& result) {
    switch (result.outcome) {
    case RendezvousOutcome::listening:
    case RendezvousOutcome::answered:
    case RendezvousOutcome::reached:
        return false;
    case RendezvousOutcome::own_name_loopback:
        return !result.warning;
    default:
        return true;
    }
}

std::string describe(const RendezvousResult& result) {
    std::string error = util::escape_for_message(result.error);
    switch (result.outcome) {
    case RendezvousOutcome::listening:
        return fmt::format("listening on port {} for the rendezvous check", result.port);
    case RendezvousOutcome::answered:
    case RendezvousOutcome::reached:
        return fmt::format("reached {}", target(result));
    case RendezvousOutcome::port_in_use:
        if (result.holder) {
            return fmt::format("port {} is in use on the master, by process {} ({}): an earlier "
                               "job still running? (stop it, or give --master_port another "
                               "port)",
                               result.port, result.holder->pid,
                               util::escape_for_message(result.holder->command));
        }
        return fmt::format("port {} is in use on the master: an earlier job still running? "
                           "(stop it, or give --master_port another port)",
                           result.port);
    case RendezvousOutcome::cannot_listen:
        return fmt::format("cannot listen on port {} on the master ({}; give --master_port "
                           "another port)",
                           result.port, error);
    case RendezvousOutcome::foreign:
        return fmt::format("{} answered, but not as this launch's master: the name leads this "
                           "node to another machine that listens on that port (set "
                           "--master_addr to an address that reaches the master from every "
                           "node)",
                           target(result));
    case RendezvousOutcome::refused:
        return fmt::format("{}: connection refused (nothing listens there: does the name lead "
                           "this node to another machine than the master?)",
                           target(result));
    case RendezvousOutcome::timed_out:
        return fmt::format("{}: no connection within the check's time (a firewall or a "
                           "security group dropping the port between this node and the "
                           "master?)",
                           target(result));
    case RendezvousOutcome::no_route:
        return fmt::format("{}: no route to the host ({}; is the address one this node can "
                           "reach? --network-interface, a route)",
                           target(result), error);
    case RendezvousOutcome::cannot_connect:
        return fmt::format("{}: cannot connect ({})", target(result), error);
    case RendezvousOutcome::unresolved:
        return fmt::format("{}: the name does not resolve on this node ({}; set --master_addr "
                           "to an address every node can reach)",
                           target(result), error);
    case RendezvousOutcome::own_name_loopback: {
        std::string name = util::escape_for_message(result.name);
        std::string found =
            result.address.empty()
                ? fmt::format("the node's own name '{}' does not resolve on the node, so gloo "
                              "falls back to loopback",
                              name)
                : fmt::format("the node's own name '{}' resolves to the loopback address {} on "
                              "the node",
                              name, util::escape_for_message(result.address));
        if (result.warning) {
            return found + " (gloo uses the interface it was given instead)";
        }
        return found + ", which gloo would advertise to the other nodes (map the name to the "
                       "node's own address in /etc/hosts, or give --network-interface)";
    }
    }
    return rendezvous_line(result);
}

std::string describe_no_rendezvous_result() {
    return "rendezvous check: the node's Python printed no result (is it Python 3.6 or newer? "
           "--no-rendezvous-check skips the check)";
}

std::string describe_rendezvous_timeout(std::chrono::milliseconds wait) {
    return fmt::format("rendezvous check: no result from the node in {:g} s",
                       std::chrono::duration<double>(wait).count());
}

} // namespace colossalai::job
