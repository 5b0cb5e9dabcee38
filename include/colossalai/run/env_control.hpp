#pragma once

// Environment control of `colossalai run`: `-x`, `--env-file` (and the default
// `.colossalai_env`) and `--env-exclude`, parsed and validated once into typed values. Pure
// functions: reading the files is prepare()'s work.
//
// The precedence rule (docs/run.md): every step overrides the ones before it:
//   1. the launcher's environment (without its session variables, run/environment.hpp),
//   2. the env files, in order,
//   3. --env-exclude: what matches is not exported (a node keeps its own value),
//   4. -x, in order.

#include "colossalai/run/plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// One --env-exclude pattern: a variable name, or a prefix followed by `*` (`NCCL_*`).
struct EnvPattern {
    std::string text; // as given: "NCCL_SOCKET_IFNAME", "NCCL_*"
    bool prefix = false;

    bool matches(std::string_view name) const;
    friend bool operator==(const EnvPattern&, const EnvPattern&) = default;
};

// An env file as read by prepare(): its name (for messages: `file:line: ...`) and text.
struct EnvFileText {
    std::string path;
    std::string text;
};

// What the flags ask for, as the user wrote it, before parsing.
struct EnvRequest {
    std::vector<EnvFileText> files;   // --env-file FILE..., else the default one when present
    std::vector<std::string> exports; // -x NAME=VALUE / -x NAME, in order
    std::vector<std::string> exclude; // --env-exclude PATTERN[,PATTERN...], each as given
};

// Throws a usage error (naming `where` and the name) unless `name` can be passed to a node: an
// identifier, and not a read-only or shell-managed variable (PPID, UID, EUID, IFS, ...).
void check_env_name(std::string_view name, std::string_view where);

// Throws a usage error unless `value` can be passed to a node: no NUL byte, no line break.
void check_env_value(std::string_view name, std::string_view value, std::string_view where);

// `NAME=VALUE` lines; blank lines and lines whose first non-blank character is `#` are
// skipped; leading blanks and a trailing `\r` (CRLF files) are ignored; the value is the rest
// of the line after the first `=`, as it is (quotes are part of it). A later line for the same
// name wins. Errors name `path:line`. Source of each setting: `path:line`.
std::vector<EnvSetting> parse_env_file(std::string_view text, std::string_view path);

// One `-x` word: `NAME=VALUE` sets the value; `NAME` forwards the launcher's value, taken from
// `launcher_environment` (`NAME=value` entries, as in environ; the first one wins), and is an
// error when the launcher has none. Source: "-x".
EnvSetting parse_export(std::string_view word,
                        const std::vector<std::string>& launcher_environment);

// One --env-exclude value: comma-separated names or `PREFIX*` patterns.
std::vector<EnvPattern> parse_env_patterns(std::string_view text);

// The flags applied to the launcher's environment by the precedence rule above. `launcher`
// is the filtered environment every remote node gets without any flag (sorted by name).
EnvironmentChanges plan_environment(const EnvRequest& request,
                                    const std::vector<std::string>& launcher_environment,
                                    const std::vector<EnvVar>& launcher);

// What a remote node exports: `launcher` without the dropped names, with the set values on top;
// sorted by name.
std::vector<EnvVar> remote_environment(const std::vector<EnvVar>& launcher,
                                       const EnvironmentChanges& changes);

} // namespace colossalai::run
