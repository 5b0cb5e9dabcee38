#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::job {

// The preflight checks for a node on this machine, as the node wrapper runs them on a remote
// one, in the same order: the working directory exists, the command (argv[0]) is found in the
// PATH of `environment` (NAME=value), the master address resolves, the named network
// interfaces exist. Returns the first failed check, or nullopt. Blocks only to resolve a master
// address that is a name (numeric addresses need no lookup).
std::optional<PreflightFailure> local_preflight(const NodeCommand& command,
                                                const std::vector<std::string>& environment);

} // namespace colossalai::job
