#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// One host as the user named it. Accepted forms: a host name or ssh-config alias
// ([A-Za-z0-9._-], not starting with '-'), an IPv4 address, an IPv6 address bare (`::1`,
// `fe80::1%eth0`) or in brackets (`[::1]`), each optionally preceded by `user@`.
struct Host {
    std::string name;                // as written: "node1", "alice@node1", "[::1]"
    std::optional<std::string> user; // "alice" for "alice@node1"
    std::string address;             // what to resolve and connect to: "node1", "::1"
    // The machine it names, for telling hosts apart: without `user@` (one machine is one node,
    // whoever logs in), the name in lower case without a trailing dot, an IPv6 address in its
    // canonical spelling ("node1", "::1", "fe80::1%eth0"). `NODE1`, `node1.`, `alice@node1` and
    // `node1` are one machine; so are `[::1]`, `::1` and `0::1`.
    std::string machine;
    // Processes this host offers, from a hostfile's `slots=N` (or `max_slots=N`) or from the
    // lines of a scheduler's node file; nullopt when nothing said.
    std::optional<int> slots;
    // The GPUs of this host that --include / --exclude selected with DeepSpeed's `host:0,1`
    // (run/host_selection.hpp), in the order the node's processes use them; nullopt when the
    // selection named no GPU index (the node runs --nproc_per_node processes, as before).
    std::optional<std::vector<int>> gpus;

    bool operator==(const Host&) const = default;
};

// The longest host name (DNS allows 253 characters) and user name accepted.
inline constexpr size_t max_host_name = 253;
inline constexpr size_t max_user_name = 255;

// Parses one host name. Throws a usage error `<where>: invalid host '<text>': <reason>` for
// anything else, notably shell metacharacters, whitespace or control bytes inside the name, a
// leading '-' (it would be read as an ssh option such as `-oProxyCommand=...`) and names longer
// than max_host_name / max_user_name.
Host parse_host(std::string_view text, std::string_view where);

// Parses a hostfile: one host (or host range, see expand_host_pattern) per line, optionally
// followed by `slots=N` and/or `max_slots=N` (DeepSpeed, Open MPI, Horovod hostfiles; slots
// wins when both are given, and may not exceed max_slots); surrounding whitespace, blank lines, `#`
// comments (whole-line or trailing), CRLF line ends and a UTF-8 byte-order mark are ignored. `path`
// names the file in messages: `<path>:<line>: duplicate host 'x' (first at line N)`, or
// `(the same machine as 'alice@x' at line N)` when spelled otherwise there. Throws a usage
// error for a bad or duplicate host, a NUL byte (not a text file) or a file without hosts.
std::vector<Host> parse_hostfile(std::string_view text, std::string_view path);

// Parses a comma-separated list given to `option` (--host, --include, --exclude); an item may
// be a host range (`node[01-16]`, see expand_host_pattern), whose commas inside brackets do not
// split the list. Whitespace around each item is ignored. Hosts come in the order written.
// Throws a usage error for an empty list, an empty item (`a,,b`, `a,`), a bad range, more than
// max_expanded_hosts hosts, a bad host or a duplicate machine (after expansion: `duplicate host
// 'x'`, or `duplicate host 'bob@x' (the same machine as 'alice@x')` when spelled otherwise).
std::vector<Host> parse_host_list(std::string_view list, std::string_view option);

// Reads the hostfile at `path` for parse_hostfile() (or a scheduler's node file). Throws a usage
// error `<what> '<path>': <reason>` when it cannot be read or is larger than 1 MiB (a binary,
// /dev/zero).
std::string read_hostfile(const std::string& path, std::string_view what = "--hostfile");

} // namespace colossalai::run
