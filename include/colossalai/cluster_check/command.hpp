#pragma once

#include "colossalai/check/options.hpp"

#include <ostream>

namespace colossalai::cluster_check {

// `colossalai check -i --host/--hostfile`: runs the node program (node_probe.hpp) on every node
// at once over SSH (connect settings as `colossalai run`), prints the cluster report on `out`
// and each node's warnings on `err`, and returns cluster_exit_status(). Throws a usage error
// for a bad host list or hostfile before connecting anywhere.
int execute(const check::Options& options, std::ostream& out, std::ostream& err);

} // namespace colossalai::cluster_check
