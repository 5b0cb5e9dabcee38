#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::job {

// The preflight checks for a node on this machine, as the node wrapper runs them on a remote
// one, in the same order: the working directory exists, the command (argv[0]) is found in the
// PATH of `environment` (NAME=value), the script is readable (relative to the working
// directory), the master address resolves, the named network
// interfaces exist, the node has the GPUs asked (preflight.gpus: `nvidia-smi -L` found in that
// PATH, else /proc/driver/nvidia/gpus). Returns the first failed check, or nullopt. Blocks only to
// resolve a master address that is a name (numeric addresses need no lookup) and, when GPUs are
// asked, to run `nvidia-smi -L`.
std::optional<PreflightFailure> local_preflight(const NodeCommand& command,
                                                const std::vector<std::string>& environment);

// The GPUs in `nvidia-smi -L`'s output: its lines that start with "GPU " (a MIG device's lines,
// indented under its GPU, are not counted).
int count_gpu_lines(std::string_view nvidia_smi_list);

} // namespace colossalai::job
