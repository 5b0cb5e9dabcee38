#pragma once

// `colossalai check --launcher slurm` (the slurm row's check_nodes): the node program on every
// node as one task of one srun step (srun_probe.hpp).

#include "colossalai/run/engine_row.hpp"

#include <vector>

namespace colossalai::slurm {

// Runs `request.node_argv` on each host through one srun step (with check's --srun-args), each
// node's answer read from its task's lines; a node whose task gave no answer replies with what
// srun did. srun is stopped (SIGTERM: it cancels its step) after the probes' time plus 30 s
// for the step's setup, or on Ctrl-C.
std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request);

} // namespace colossalai::slurm
