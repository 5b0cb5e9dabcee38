#pragma once

#include "colossalai/run/engine_row.hpp"

#include <ostream>

namespace colossalai::cluster_check {

// Whether `options` check nodes (--host, --hostfile, --allocation, or an engine that alone
// checks the allocation's nodes: `--launcher slurm`) rather than this machine.
bool cluster_mode(const run::CheckOptions& options);

// `colossalai check -i --host/--hostfile`: runs the node program (node_probe.hpp) on every node
// through the engine chosen (its row's check_nodes: over SSH, or one srun step), prints the cluster
// report on `out` and each node's warnings on `err`, and returns cluster_exit_status(). Throws a
// usage error for a bad host list or hostfile before connecting anywhere.
int execute(const run::CheckOptions& options, std::ostream& out, std::ostream& err);

} // namespace colossalai::cluster_check
