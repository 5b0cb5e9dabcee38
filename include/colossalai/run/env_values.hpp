#pragma once

// The values of `-x` and `--env-exclude`, typed where the cli reads them (run::Options holds
// them), so that the planner's environment control (env_control.hpp) parses nothing again.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// One `-x` value: `NAME=VALUE` sets the value; `NAME` alone passes on the launcher's value of
// NAME (looked up when the plan is made: env_control.hpp's resolve_export).
struct EnvExport {
    std::string name;
    std::optional<std::string> value; // nullopt: the launcher's
    bool operator==(const EnvExport&) const = default;
};

// Parses one `-x` word: the name up to the first '=', the value the rest (kept byte for byte).
// Throws check_env_name's and check_env_value's usage errors, prefixed "-x: ".
EnvExport parse_env_export(std::string_view word);

// One --env-exclude pattern: a variable name, or a prefix followed by `*` (`NCCL_*`).
struct EnvPattern {
    std::string text; // as given: "NCCL_SOCKET_IFNAME", "NCCL_*"
    bool prefix = false;

    bool matches(std::string_view name) const;
    friend bool operator==(const EnvPattern&, const EnvPattern&) = default;
};

// One --env-exclude value: comma-separated names or `PREFIX*` patterns. Throws a usage error
// for an empty item or one that is neither a name nor NAME*.
std::vector<EnvPattern> parse_env_patterns(std::string_view text);

// Throws a usage error (naming `where` and the name) unless `name` can be passed to a node: an
// identifier, and not a read-only or shell-managed variable (PPID, UID, EUID, IFS, ...).
void check_env_name(std::string_view name, std::string_view where);

// Throws a usage error unless `value` can be passed to a node: no NUL byte, no line break.
void check_env_value(std::string_view name, std::string_view value, std::string_view where);

} // namespace colossalai::run
