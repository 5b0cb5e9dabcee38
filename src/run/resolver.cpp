#include "colossalai/run/resolver.hpp"

#include "colossalai/exec/fork.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/fd.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace colossalai::run {

namespace {

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
    // Nor is a child started past it: under a heavy load 32 forks took a second (load 18).
    for (std::size_t i = 0; i < std::min(names.size(), max_concurrent_lookups) &&
                            std::chrono::steady_clock::now() < deadline;
         ++i) {
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

} // namespace colossalai::run
