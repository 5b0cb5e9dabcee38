#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

// The rendezvous check: before any job starts, the node that serves torchrun's rendezvous (node
// 0's TCPStore at master_addr:master_port, or a c10d --rdzv_endpoint that is one of the nodes)
// listens on that port as torch will, and every other node resolves the address as torchrun
// will on that node and connects, so that a firewall, a name that resolves elsewhere or not at
// all, a port still held by an earlier job and a node's own name on loopback are each one line
// before anything starts instead of a hang at the rendezvous. One Python program (the nodes'
// own, the one torchrun needs: no new package on a node) plays each role; its answer is one
// line per result, parsed here and described once.
namespace colossalai::job {

// The node that serves the rendezvous: binds `port` on the wildcard address (IPv6 dual-stack,
// else IPv4) with SO_REUSEADDR and a backlog for a thousand nodes, says "listening" and answers
// every connection with the launch's token until it is told to stop: a line or EOF on its stdin
// (`stop_on_stdin`), `expect` connections answered, or the probe's bound (with `expect`, a
// failure without a result line of its own: another node failed, or came too late).
struct RendezvousListen {
    int port = 0;
    bool stop_on_stdin = true;
    std::optional<int> expect;
};

// Every other node: resolves `address` (getaddrinfo, SOCK_STREAM, as torchrun) and connects to
// its addresses in order within the probe's bound. `retry`: a refused or unroutable connection
// is tried again until the bound ends (srun's and mpirun's tasks, which start without a go
// line: the listener may not be up yet).
struct RendezvousConnect {
    std::string address;
    int port = 0;
    bool retry = false;
};

// The node's own host name must not resolve, on the node, to a loopback address when more than
// one machine takes part (gloo advertises that address to the others). `interface_given`: gloo is
// told its interface (--network-interface), so that is a warning only; GLOO_SOCKET_IFNAME in the
// node's environment counts the same (the program reads it there). `hostname`: the name to check
// instead of the node's own (a test's seam; nullopt on a real launch).
struct OwnNameCheck {
    bool interface_given = false;
    std::optional<std::string> hostname;
};

// One node's part of the check.
struct RendezvousProbe {
    std::variant<RendezvousListen, RendezvousConnect> role;
    // The launch's fresh token, which the listener answers and a connecting node compares;
    // nullopt: the node only connects (an endpoint outside the job: etcd, a host of its own).
    std::optional<std::string> token;
    std::optional<OwnNameCheck> own_name;
    std::chrono::milliseconds bound{10000};
};

// The check as the planner decided it for a launch (run::Plan::rendezvous), the same for every
// engine: who listens, where the others connect, with what token, by which interpreter.
struct RendezvousPlan {
    std::string python;                  // the nodes' interpreter (the one torchrun runs on)
    std::string token;                   // fresh for this launch (fresh_rendezvous_token)
    std::optional<std::size_t> listener; // the rank that listens; nullopt: none of the nodes
    std::string address;                 // where the others connect (master_addr, the endpoint)
    int port = 0;
    bool own_name = false;        // more than one machine takes part
    bool interface_given = false; // --network-interface
    std::chrono::milliseconds bound{10000};
    std::size_t nodes = 0; // how many take part (the listener's count with ProbeStart::together)
    friend bool operator==(const RendezvousPlan&, const RendezvousPlan&) = default;
};

// Who runs a launch's check (each engine says, engines::rendezvous_way): nobody (none planned,
// or an engine that cannot), the launcher itself before the jobs (every node its child:
// launch/local_rendezvous.hpp), or the transports (the SSH wrappers after the barrier, with a
// node on this machine as a child of the launcher in the same turns: job::LocalTransport;
// srun's task scripts).
enum class RendezvousWay { none, launcher, transports };

// How the nodes' probes are started: `told`, the listener first and the others once it listens
// (local children; SSH: a phase after the barrier), the listener stopped by a line on its stdin;
// `together` (srun's and mpirun's tasks, which have no go line): all at once, each other node
// retrying within the bound until the listener is up, the listener ending once every other node
// (`nodes` - 1) was answered, or at the bound.
enum class ProbeStart { told, together };

// The probe of node `rank` in `plan`: the listener's role or a connection (with the token unless
// no node listens), as `start` says.
RendezvousProbe probe_for(const RendezvousPlan& plan, std::size_t rank, ProbeStart start);

// 16 random hex digits (the kernel's random source): the value the listener answers.
std::string fresh_rendezvous_token();

// The Python program (Python 3.6 or newer, standard library only; no `'` in it, so that a
// POSIX shell line may hold it in single quotes).
std::string_view rendezvous_program();

// The program's own arguments for `probe` (after `-c PROGRAM`).
std::vector<std::string> rendezvous_arguments(const RendezvousProbe& probe);

// The command of a task script (POSIX sh text) for `probe`: `python -I -S -c "$VARIABLE"
// ARGUMENTS...`, the program in the script's variable `program_variable` (set once to
// rendezvous_program()), each word quoted (util::shell_quote) but the connection's address and
// the token, where `words` gives them as the script's own (`"$cai_m"`): a value the script
// knows only when it runs (the master srun chose, the step's id).
struct ShellWords {
    std::optional<std::string> address;
    std::optional<std::string> token;
};
std::string rendezvous_shell_command(const std::string& python, const RendezvousProbe& probe,
                                     std::string_view program_variable, const ShellWords& words);

// The whole command: `python -I -S -c PROGRAM ARGUMENTS...` (isolated from the node's
// PYTHON* variables and site packages: nothing but the standard library is imported).
std::vector<std::string> rendezvous_command(const std::string& python,
                                            const RendezvousProbe& probe);

// The program's result lines start with this (then the fields, rendezvous_line's words); the
// first byte (ASCII RS) never starts a line of a login banner or a job's text output.
inline constexpr std::string_view rendezvous_marker = "\036colossalai-rdzv ";

// What one result line says.
enum class RendezvousOutcome {
    listening,         // the listener is up (the others may check now)
    answered,          // connected, and the listener answered this launch's token
    reached,           // connected (no token to compare: an endpoint outside the job)
    port_in_use,       // the listener's bind failed: EADDRINUSE
    cannot_listen,     // another bind or listen failure (EACCES below 1024, ...)
    foreign,           // connected, but what answered (or said nothing) is not this launch's
    refused,           // ECONNREFUSED
    timed_out,         // no connection within the bound
    no_route,          // EHOSTUNREACH, ENETUNREACH
    cannot_connect,    // another connect failure (`error` names it)
    unresolved,        // getaddrinfo failed (`error`: its message)
    own_name_loopback, // the node's own name resolves to loopback (`address`; empty: not at all)
};

// The process that holds a port (found through /proc/net/tcp{,6} and /proc/PID/fd).
struct PortHolder {
    int pid = 0;
    std::string command; // its command line, words joined by spaces
    friend bool operator==(const PortHolder&, const PortHolder&) = default;
};

struct RendezvousResult {
    RendezvousOutcome outcome = RendezvousOutcome::listening;
    std::string name{};    // what was resolved: the address connected to, the node's own name
    std::string address{}; // what it resolved to (empty when it did not, or for the listener)
    int port{};
    std::string error{};                // the errno name (ECONNRESET) or the resolver's message
    std::optional<PortHolder> holder{}; // port_in_use, when the node could tell
    bool warning{}; // own_name_loopback with gloo's interface given: not a failure
    friend bool operator==(const RendezvousResult&, const RendezvousResult&) = default;
};

// The result in `text` (one line of the program's output, with or without rendezvous_marker);
// nullopt when it is not one.
std::optional<RendezvousResult> parse_rendezvous_line(std::string_view text);

// The line the program prints for `result` (without the marker or the newline): the fields are
// `OUTCOME NAME ADDRESS PORT DETAIL...`, `-` for an empty one; DETAIL is the errno name, the
// resolver's message, `fail`/`warn`, or the holder's `PID COMMAND...`. For tests and for a
// transport that reports a result itself.
std::string rendezvous_line(const RendezvousResult& result);

// Whether the launch must stop: every outcome but listening, answered, reached and a warning.
bool is_failure(const RendezvousResult& result);

// The one line a result reads as (after the node's name): what the node tried (the name, the
// address it resolved to, the port), what happened and what to do about it.
std::string describe(const RendezvousResult& result);

// What a node's part of the check that gave no result reads as: its Python printed none (not
// Python 3.6 or newer), or none came within `wait`.
std::string describe_no_rendezvous_result();
std::string describe_rendezvous_timeout(std::chrono::milliseconds wait);

} // namespace colossalai::job
