#pragma once

#include "colossalai/job/node_command.hpp"

#include <string>
#include <vector>

namespace colossalai::job {

// The environment of a process started on this machine (a local node; with `drop`, srun,
// whose tasks get no more than it has), from the launcher's `entries` (`NAME=value`, as in
// environ: the plan's snapshot, run::Plan::launcher_environment): the values of -x and
// --env-file replace or join them; with `drop`, the variables of --env-exclude are left out.
// The entries keep their order, the set values follow.
std::vector<std::string> local_environment(const std::vector<std::string>& entries,
                                           const EnvironmentChanges& changes, bool drop);

// `entries` with the variables of the launcher's own flags (`flag_environment`:
// --network-interface) replacing or joining them: those win over everything else.
std::vector<std::string> with_flag_environment(std::vector<std::string> entries,
                                               const std::vector<EnvVar>& flag_environment);

} // namespace colossalai::job
