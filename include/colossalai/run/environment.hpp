#pragma once

#include "colossalai/run/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// The value of `name` in `entries` (`NAME=value`, as in environ): the first one, as getenv
// finds it; nullopt when it is not set.
std::optional<std::string> find_variable(const std::vector<std::string>& entries,
                                         std::string_view name);

// True for a variable that describes this machine, this login or this shell rather than the
// job, and so must not be carried to the nodes: HOSTNAME, PWD, OLDPWD, SHLVL, `_`, SSH_*,
// DISPLAY; bash's read-only and per-shell ones (BASHOPTS, BASH_VERSINFO, BASHPID, EUID, PPID,
// SHELLOPTS, UID, ...); the login session's XDG_SESSION_* and XDG_RUNTIME_DIR; and the
// login's own identity (HOME, USER, LOGNAME, MAIL, SHELL), which a
// node's login sets itself (it may be another user or another home).
bool is_session_variable(std::string_view name);

// The launcher's environment (`NAME=value` strings, as in `environ`, the snapshot prepare()
// took) with the variables the launcher sets for its nodes unless the user did (to anything,
// even empty), appended: PYTHONUNBUFFERED=1, because node output reaches the launcher through
// a pipe or an SSH channel, where Python buffers stdout in 8 KiB blocks and training lines
// would arrive in bursts, or only at the end. Every node's environment starts from this one.
std::vector<std::string> with_launcher_defaults(std::vector<std::string> entries);

// The launcher's environment (`NAME=value` strings, as in `environ`) as passed to every node:
// the variables whose name is an identifier and whose value is one line (no '\n' and no '\r'),
// without the session variables above. Sorted by name; for a name given twice the first wins
// (as getenv does).
std::vector<EnvVar> filter_environment(const std::vector<std::string>& entries);

} // namespace colossalai::run
