#pragma once

#include "colossalai/job/preflight.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/nproc_value.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// The --nproc_per_node every node gets: the option when given, else the slots all the hosts agree
// on. torchrun runs the same number of processes on every node, so hosts must agree. `source` names
// where the hosts came from in messages ("the hostfile hosts", "PBS_NODEFILE"). Throws a usage
// error when neither the option nor slots say, when some hosts have slots and others not, when
// slots differ between hosts or from the option, or for a symbolic value with slots. (Whether the
// PyTorch accepts a symbolic value is the planner's gate, from torch_forms.hpp.)
NprocPerNode resolve_nproc_per_node(const std::optional<NprocPerNode>& option,
                                    const std::vector<Host>& hosts, std::string_view source);

// The GPUs a node's preflight asks for (job::GpusNeeded): its selected GPU indices when the launch
// names some (`selected`, Host::gpus), else from the node's resolved --nproc_per_node: a number
// of processes one GPU each (a node without GPUs runs them CPU-only), `gpu` at least one GPU,
// `auto` and `cpu` none.
job::GpusNeeded gpus_needed(const std::optional<std::vector<int>>& selected,
                            const std::optional<NprocPerNode>& nproc);

} // namespace colossalai::run
