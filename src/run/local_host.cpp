#include "colossalai/run/local_host.hpp"

#include "colossalai/exec/fork.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/fd.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>

namespace colossalai::run {

namespace {

std::string lower(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return result;
}

AddressKind classify_ipv4(const in_addr& address) {
    uint32_t host_order = ntohl(address.s_addr);
    if ((host_order >> 24) == 127) {
        return AddressKind::loopback;
    }
    return host_order == 0 ? AddressKind::unspecified : AddressKind::other;
}

AddressKind classify_ipv6(const in6_addr& address) {
    if (IN6_IS_ADDR_LOOPBACK(&address)) {
        return AddressKind::loopback;
    }
    if (IN6_IS_ADDR_UNSPECIFIED(&address)) {
        return AddressKind::unspecified;
    }
    if (IN6_IS_ADDR_V4MAPPED(&address)) {
        in_addr v4{};
        std::memcpy(&v4.s_addr, &address.s6_addr[12], 4);
        return classify_ipv4(v4);
    }
    return AddressKind::other;
}

// The numeric text of a socket address (without a scope id), or nullopt for other families.
std::optional<std::string> numeric(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    } else if (address->sa_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
        inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    } else {
        return std::nullopt;
    }
    return std::string(text);
}

using AddrInfo = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

// getaddrinfo for `host`; null when it does not resolve. AI_NUMERICHOST never sends a query.
AddrInfo look_up(const std::string& host, int flags) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    addrinfo* results = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) {
        return {nullptr, &freeaddrinfo};
    }
    return {results, &freeaddrinfo};
}

// Every address `host` resolves to (numeric text), empty when it does not resolve.
std::vector<std::string> resolve(const std::string& host, int flags) {
    std::vector<std::string> addresses;
    AddrInfo results = look_up(host, flags);
    for (const addrinfo* entry = results.get(); entry != nullptr; entry = entry->ai_next) {
        if (std::optional<std::string> text = numeric(entry->ai_addr)) {
            addresses.push_back(std::move(*text));
        }
    }
    return addresses;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

// Sends all of `data` on the socket `fd`; false when the other end is gone (no SIGPIPE).
bool send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// One resolver child: the parent sends it a name's index (4 bytes), it answers one line
// (resolver_answer_line) on the same socket, one name at a time.
struct Resolver {
    pid_t pid = -1;
    util::Fd channel;                 // the parent's end of the socket pair
    std::optional<std::size_t> asked; // the name it is looking up now
    std::string partial;              // its answer so far, until the newline
};

// The child's work: looks up the names it is asked for until the parent closes the socket, then
// exits. Every signal blocked, as the lookup threads once had them: a Ctrl-C is the launcher's
// to read (and the child dies with it: PR_SET_PDEATHSIG).
[[noreturn]] void serve_lookups(const std::vector<std::string>& names, int channel) {
    sigset_t all{};
    sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);
    while (true) {
        std::uint32_t index = 0;
        std::size_t got = 0;
        while (got < sizeof index) {
            ssize_t n = ::read(channel, reinterpret_cast<char*>(&index) + got, sizeof index - got);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                ::_exit(0);
            }
            got += static_cast<std::size_t>(n);
        }
        if (index >= names.size() ||
            !send_all(channel, resolver_answer_line(resolve(names[index], 0)))) {
            ::_exit(0);
        }
    }
}

// Forks a resolver child for `names`; nullopt when it cannot be started. The child closes the
// parent's ends of the `others` started before it, so that each child's end is its own.
std::optional<Resolver> start_resolver(const std::vector<std::string>& names,
                                       const std::vector<Resolver>& others) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        return std::nullopt;
    }
    util::Fd parent_end(ends[0]);
    util::Fd child_end(ends[1]);
    pid_t pid = exec::fork_child(SIGKILL);
    if (pid == 0) {
        for (const Resolver& other : others) {
            ::close(other.channel.get());
        }
        ::close(parent_end.get());
        serve_lookups(names, child_end.get());
    }
    if (pid < 0) {
        return std::nullopt;
    }
    Resolver resolver;
    resolver.pid = pid;
    resolver.channel = std::move(parent_end);
    return resolver;
}

// Asks `resolver` for names[index]; false when it is gone.
bool ask(Resolver& resolver, std::size_t index) {
    const auto request = static_cast<std::uint32_t>(index);
    if (!send_all(resolver.channel.get(),
                  std::string_view(reinterpret_cast<const char*>(&request), sizeof request))) {
        resolver.channel.reset();
        return false;
    }
    resolver.asked = index;
    return true;
}

} // namespace

AddressKind classify_address(std::string_view text) {
    std::string copy(text); // inet_pton needs a terminated string
    in_addr v4{};
    if (inet_pton(AF_INET, copy.c_str(), &v4) == 1) {
        return classify_ipv4(v4);
    }
    in6_addr v6{};
    if (inet_pton(AF_INET6, copy.c_str(), &v6) == 1) {
        return classify_ipv6(v6);
    }
    return AddressKind::name;
}

bool is_ipv6_link_local(std::string_view address) {
    std::string copy(address.substr(0, address.find('%')));
    in6_addr v6{};
    return inet_pton(AF_INET6, copy.c_str(), &v6) == 1 && v6.s6_addr[0] == 0xfe &&
           (v6.s6_addr[1] & 0xc0) == 0x80;
}

bool is_loopback(std::string_view address) {
    return lower(address) == "localhost" || classify_address(address) == AddressKind::loopback;
}

bool resolves_to_local(const std::vector<std::string>& resolved, const MachineIdentity& identity) {
    return std::any_of(resolved.begin(), resolved.end(), [&](const std::string& address) {
        AddressKind kind = classify_address(address);
        return kind == AddressKind::loopback || kind == AddressKind::unspecified ||
               contains(identity.interfaces, address);
    });
}

std::optional<bool> local_without_lookup(std::string_view address,
                                         const MachineIdentity& identity) {
    std::string name = lower(address);
    if (name == "localhost" || contains(identity.names, name)) {
        return true;
    }
    // Numeric forms (also "127.1" or "fe80::1%lo") are converted without any query.
    std::vector<std::string> numeric_forms = resolve(std::string(address), AI_NUMERICHOST);
    if (!numeric_forms.empty()) {
        return resolves_to_local(numeric_forms, identity);
    }
    return std::nullopt;
}

std::string resolver_answer_line(const std::vector<std::string>& addresses) {
    return fmt::format("{}\n", fmt::join(addresses, " "));
}

std::vector<std::string> parse_resolver_answer(std::string_view line) {
    std::vector<std::string> addresses = util::split(line, ' ');
    std::erase_if(addresses, [](const std::string& address) { return address.empty(); });
    return addresses;
}

std::vector<std::optional<std::vector<std::string>>>
resolve_concurrently(const std::vector<std::string>& names, std::chrono::milliseconds bound) {
    std::vector<std::optional<std::vector<std::string>>> results(names.size());
    if (names.empty()) {
        return results;
    }
    const auto deadline = std::chrono::steady_clock::now() + bound;
    // Child processes, not threads: one stuck on a DNS server that never answers is killed at
    // the deadline, where a thread could only be left behind.
    std::vector<Resolver> resolvers;
    std::size_t next = 0; // the next name to ask for
    for (std::size_t i = 0; i < std::min(names.size(), max_concurrent_lookups); ++i) {
        std::optional<Resolver> resolver = start_resolver(names, resolvers);
        if (!resolver) {
            break;
        }
        resolvers.push_back(std::move(*resolver));
        ask(resolvers.back(), next++);
    }
    std::vector<pollfd> watched;
    std::vector<Resolver*> asked;
    while (true) {
        watched.clear();
        asked.clear();
        for (Resolver& resolver : resolvers) {
            if (resolver.asked && resolver.channel) {
                watched.push_back({resolver.channel.get(), POLLIN, 0});
                asked.push_back(&resolver);
            }
        }
        if (watched.empty()) {
            break; // every name answered (or its resolver is gone)
        }
        int ready = ::poll(watched.data(), watched.size(), util::poll_timeout_ms(deadline));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            break; // the bound: names without an answer by now have none
        }
        for (std::size_t i = 0; i < watched.size(); ++i) {
            if (watched[i].revents == 0) {
                continue;
            }
            Resolver& resolver = *asked[i];
            char buffer[4096];
            ssize_t n = ::read(resolver.channel.get(), buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) { // it died: its name has no answer, the others take the rest
                resolver.channel.reset();
                continue;
            }
            resolver.partial.append(buffer, static_cast<std::size_t>(n));
            std::size_t end = resolver.partial.find('\n');
            if (end == std::string::npos) {
                continue;
            }
            results[*resolver.asked] =
                parse_resolver_answer(std::string_view(resolver.partial).substr(0, end));
            resolver.partial.clear();
            resolver.asked.reset();
            // No name is asked for past the bound: while answers kept coming, the loop asked on
            // and never saw poll's timeout (100,000 names that fail at once: seconds over it).
            if (next < names.size() && std::chrono::steady_clock::now() < deadline) {
                ask(resolver, next++);
            }
        }
    }
    // Every child is killed before any is reaped: they die at once rather than one after
    // another, each while the launcher waits for it.
    for (Resolver& resolver : resolvers) {
        resolver.channel.reset();
        ::kill(resolver.pid, SIGKILL);
    }
    for (const Resolver& resolver : resolvers) {
        exec::reap_child(resolver.pid, true);
    }
    return results;
}

std::optional<std::string> route_source(const std::string& address) {
    AddrInfo target = look_up(address, AI_NUMERICHOST);
    if (!target) {
        return std::nullopt;
    }
    util::Fd fd(socket(target->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        return std::nullopt;
    }
    sockaddr_storage destination{};
    std::memcpy(&destination, target->ai_addr, target->ai_addrlen);
    // Any port: connect() on a UDP socket only chooses the route and the source address.
    if (target->ai_family == AF_INET) {
        reinterpret_cast<sockaddr_in*>(&destination)->sin_port = htons(9);
    } else {
        reinterpret_cast<sockaddr_in6*>(&destination)->sin6_port = htons(9);
    }
    sockaddr_storage source{};
    socklen_t length = sizeof source;
    std::optional<std::string> result;
    if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&destination), target->ai_addrlen) ==
            0 &&
        getsockname(fd.get(), reinterpret_cast<sockaddr*>(&source), &length) == 0) {
        result = numeric(reinterpret_cast<const sockaddr*>(&source));
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&source);
        char name[IF_NAMESIZE] = {};
        if (result && source.ss_family == AF_INET6 && v6->sin6_scope_id != 0 &&
            if_indextoname(v6->sin6_scope_id, name) != nullptr) {
            *result += "%" + std::string(name);
        }
    }
    return result;
}

LocalHostDetector::LocalHostDetector() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) == 0 && buffer[0] != '\0') {
        std::string name = lower(buffer);
        m_identity.names.push_back(name);
        m_identity.names.push_back(name.substr(0, name.find('.')));
    }
    ifaddrs* interfaces = nullptr;
    if (getifaddrs(&interfaces) == 0) {
        for (const ifaddrs* entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
            if (entry->ifa_addr == nullptr) {
                continue;
            }
            if (std::optional<std::string> text = numeric(entry->ifa_addr)) {
                m_identity.interfaces.push_back(std::move(*text));
            }
        }
        freeifaddrs(interfaces);
    }
}

std::vector<bool> LocalHostDetector::operator()(const std::vector<std::string>& addresses,
                                                std::chrono::milliseconds bound) {
    std::vector<bool> local(addresses.size(), false);
    std::vector<std::string> names; // unique, in order
    // What `names` holds, for a lookup rather than a scan per address (100,000 hosts).
    std::unordered_set<std::string_view> listed;
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        if (std::optional<bool> known = local_without_lookup(addresses[i], m_identity)) {
            local[i] = *known;
        } else if (listed.insert(addresses[i]).second) {
            names.push_back(addresses[i]);
        }
    }
    std::vector<std::optional<std::vector<std::string>>> answers =
        resolve_concurrently(names, bound);
    // Only the names that resolved are kept: one that did not is another machine and is its own
    // candidate for source_towards, as one never looked up (100,000 failed names: 5 MB).
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (answers[i] && !answers[i]->empty()) {
            m_resolved[names[i]] = std::move(*answers[i]);
        } else if (answers[i]) {
            m_resolved.erase(names[i]);
        }
    }
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        auto found = m_resolved.find(addresses[i]);
        if (found != m_resolved.end()) {
            local[i] = resolves_to_local(found->second, m_identity);
        }
    }
    return local;
}

std::optional<std::string> LocalHostDetector::source_towards(const std::string& address) const {
    std::vector<std::string> candidates{address};
    if (auto found = m_resolved.find(address); found != m_resolved.end()) {
        candidates = found->second;
    }
    for (const std::string& candidate : candidates) {
        std::optional<std::string> source = route_source(candidate);
        if (source && classify_address(*source) == AddressKind::other) {
            return source;
        }
    }
    return std::nullopt;
}

} // namespace colossalai::run
