#pragma once

#include "colossalai/job/node_command.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

// The planner makes the job module's node commands.
using job::EnvVar;
using job::NodeCommand;

// What `colossalai run` will do: the node commands in rank order, plus warnings to print
// (one line each) before anything starts.
struct Plan {
    std::vector<job::NodeCommand> nodes;
    std::vector<std::string> warnings;
    // Lines that say what was decided for the user (where the hosts came from), printed
    // before anything starts.
    std::vector<std::string> notices;
    // The PyTorch version that chose the command form (normalised, "2.1.0"); nullopt when
    // PyTorch was not found and a current one (>= 2.0, torchrun) is assumed.
    std::optional<std::string> torch_version;
    // --launcher slurm: the one srun that runs every node (run/srun_command.hpp); else empty.
    std::vector<std::string> srun_command;
};

} // namespace colossalai::run
