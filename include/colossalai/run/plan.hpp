#pragma once

#include "colossalai/job/node_command.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

// The planner makes the job module's node commands.
using job::EnvironmentChanges;
using job::EnvSetting;
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
    // --launcher slurm with --num_nodes and no hosts outside an allocation: srun allocates any
    // N nodes, the nodes' `host`s are placeholders (`(node 0)`), and each task names its node.
    bool srun_allocates = false;
    // --log-dir, absolute: each node's stdout and stderr are also written to
    // `<rank>-<host>.out` / `.err` there.
    std::optional<std::string> log_dir;
};

} // namespace colossalai::run
