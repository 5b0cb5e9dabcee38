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
};

// Parses one host name. Throws a usage error `<where>: invalid host '<text>': <reason>` for
// anything else, notably shell metacharacters, whitespace or control bytes inside the name and
// a leading '-' (it would be read as an ssh option such as `-oProxyCommand=...`).
Host parse_host(std::string_view text, std::string_view where);

// Parses a hostfile: one host per line; surrounding whitespace, blank lines, `#` comments
// (whole-line or trailing), CRLF line ends and a UTF-8 byte-order mark are ignored. `path` names
// the file in messages: `<path>:<line>: duplicate host 'x' (first at line N)`. Throws a usage
// error for a bad or duplicate host, a NUL byte (not a text file) or a file without hosts.
std::vector<Host> parse_hostfile(std::string_view text, std::string_view path);

// Parses a comma-separated list given to `option` (--host, --include, --exclude). Whitespace
// around each name is ignored. Throws a usage error for an empty list, an empty item
// (`a,,b`, `a,`), a bad host or a duplicate.
std::vector<Host> parse_host_list(std::string_view list, std::string_view option);

// Reads the hostfile at `path` for parse_hostfile(). Throws a usage error `--hostfile '<path>':
// <reason>` when it cannot be read or is larger than 1 MiB (a binary, /dev/zero).
std::string read_hostfile(const std::string& path);

} // namespace colossalai::run
