#pragma once

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/options.hpp"

#include <vector>

namespace colossalai::run {

// Applies the selection options (run/host_selection.hpp) to the hosts of a pool (`source` names
// it in messages: "the hostfile hosts", "the Slurm allocation (SLURM_JOB_NODELIST)"):
// `--include` keeps the hosts it names in the order given, `--exclude` keeps the file's order
// without the hosts it names, then `--num_nodes N` keeps the first N. When the selection names
// GPU indices (DeepSpeed's `w0:0,1@w1`, `--exclude w1:0`), every host kept gets its `gpus`: those
// named, or for a whole host 0..slots-1, less those excluded (a host left without any is
// dropped). Throws a usage error for a name that is not in the pool, an index not below the
// host's slots=, a whole host (or one with GPUs excluded) without slots= when its GPUs must be
// known, an empty result, more nodes asked for than there are hosts, and a selection that reads
// two ways (`alice@h1`) whose readings both name hosts of the pool. Linear in the hosts of `pool`
// and of the lists (one hash lookup per name); `pool` is taken by value so that the hosts it keeps
// move rather than copy (100,000 of them).
std::vector<Host> select_hosts(std::vector<Host> pool, const Options& options,
                               std::string_view source);

} // namespace colossalai::run
