#pragma once

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/options.hpp"

#include <vector>

namespace colossalai::run {

// Applies the selection options to the hosts of a pool (`source` names it in messages: "the
// hostfile hosts", "the Slurm allocation (SLURM_JOB_NODELIST)"): `--include` keeps the hosts it
// names in the order given, `--exclude` keeps the file's order without the hosts it names, then
// `--num_nodes N` keeps the first N. Throws a usage error for a name that is not in the pool, an
// empty result, or more nodes asked for than there are hosts. Linear in the hosts of `pool` and
// of the lists (one hash lookup per name); `pool` is taken by value so that the hosts it keeps
// move rather than copy (100,000 of them).
std::vector<Host> select_hosts(std::vector<Host> pool, const Options& options,
                               std::string_view source);

} // namespace colossalai::run
