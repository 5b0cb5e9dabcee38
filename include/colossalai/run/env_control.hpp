#pragma once

// Environment control of `colossalai run`: `-x`, `--env-file` (and the default
// `.colossalai_env`) and `--env-exclude`, each parsed and validated once into typed values (-x
// and --env-exclude by the cli, env_values.hpp; the files' lines here). Pure functions: reading
// the files is prepare()'s work.
//
// The precedence rule (docs/run.md): every step overrides the ones before it:
//   1. the launcher's environment (without its session variables, run/environment.hpp),
//   2. the env files, in order,
//   3. --env-exclude: what matches is not exported (a node keeps its own value),
//   4. -x, in order.

#include "colossalai/run/env_values.hpp"
#include "colossalai/run/plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// An env file as read by prepare(): its name (for messages: `file:line: ...`) and text.
struct EnvFileText {
    std::string path;
    std::string text;
};

// What the flags ask for: the env files as read, -x and --env-exclude as the cli parsed them.
struct EnvRequest {
    std::vector<EnvFileText> files;  // --env-file FILE..., else the default one when present
    std::vector<EnvExport> exports;  // -x NAME=VALUE / -x NAME, in order
    std::vector<EnvPattern> exclude; // --env-exclude's patterns, in order
};

// `NAME=VALUE` lines; blank lines and lines whose first non-blank character is `#` are
// skipped; leading blanks and a trailing `\r` (CRLF files) are ignored; the value is the rest
// of the line after the first `=`, as it is (quotes are part of it). A later line for the same
// name wins. Errors name `path:line`. Source of each setting: `path:line`.
std::vector<EnvSetting> parse_env_file(std::string_view text, std::string_view path);

// One `-x` value as a setting: its value, or for `-x NAME` the launcher's value of NAME, taken
// from `launcher_environment` (`NAME=value` entries, as in environ; the first one wins): a usage
// error when the launcher has none, or when its value holds a line break. Source: "-x".
EnvSetting resolve_export(const EnvExport& export_,
                          const std::vector<std::string>& launcher_environment);

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
