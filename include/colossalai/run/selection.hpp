#pragma once

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/options.hpp"

#include <vector>

namespace colossalai::run {

// Applies the selection options to the hosts of the hostfile (`options.hostfile` names it in
// messages): `--include` keeps the hosts it names in the order given, `--exclude` keeps the
// file's order without the hosts it names, then `--num_nodes N` keeps the first N.
// Throws a usage error for a name that is not in the hostfile, an empty result, or more nodes
// asked for than there are hosts.
std::vector<Host> select_hosts(const std::vector<Host>& pool, const Options& options);

} // namespace colossalai::run
