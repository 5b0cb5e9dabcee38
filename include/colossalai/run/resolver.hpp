#pragma once

// Host-name lookups for the question "is this host this machine" (run/local_host.hpp): one name's
// addresses, and many names at once in resolver child processes within one bound.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// Every address `host` resolves to (numeric text), empty when it does not resolve: getaddrinfo
// with `flags` (AI_NUMERICHOST converts a numeric form and never sends a query). Defined in
// local_host.cpp, beside the other conversions of socket addresses to text that it shares.
std::vector<std::string> resolve(const std::string& host, int flags);

// The bound on all host-name lookups of one launch together: a name without an answer by then
// (a DNS server that never answers) counts as another machine (docs/run.md, "Local hosts").
inline constexpr std::chrono::milliseconds lookup_bound{1000};
// At most this many lookups run at once (one resolver child process each, all signals blocked).
inline constexpr std::size_t max_concurrent_lookups = 32;

// Resolves `names` concurrently (getaddrinfo: /etc/hosts, then DNS) in resolver child processes
// (exec::fork_child: they die with this process), at most max_concurrent_lookups at once, each
// answering one name at a time. Element i is the numeric addresses names[i] resolves to, empty
// when it does not resolve, nullopt when no answer came within `bound`: then the children are
// killed and reaped, and the call returns (no thread, nothing left running). Forks: call it while
// this process has a single thread (the children call getaddrinfo).
std::vector<std::optional<std::vector<std::string>>>
resolve_concurrently(const std::vector<std::string>& names, std::chrono::milliseconds bound);

// A resolver child's answer for one name: its addresses (numeric text, never a space) separated
// by spaces, and a newline. Pure.
std::string resolver_answer_line(const std::vector<std::string>& addresses);
// The addresses of an answer line without its newline (resolver_answer_line's inverse). Pure.
std::vector<std::string> parse_resolver_answer(std::string_view line);

} // namespace colossalai::run
