#pragma once

#include "colossalai/check/facts.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::cluster_check {

// One node that answered: its name as the user wrote it and its facts.
struct NodeFacts {
    std::string host;
    check::Facts facts;
};

// A node that could not be checked, with the reason (the ssh error text).
struct Unreachable {
    std::string host;
    std::string reason;
};

// The cross-node verdicts: true ✓ (every checked node has the same value), false x (two nodes
// differ), nullopt N/A (fewer than two nodes answered, or no node knows the value). A node
// without the value differs from one that has it.
struct AcrossNodes {
    std::optional<bool> same_torch;       // PyTorch version (and CPU-only or not)
    std::optional<bool> same_torch_cuda;  // CUDA version required by PyTorch
    std::optional<bool> same_system_cuda; // nvcc's release
    std::optional<bool> same_colossalai;  // version, AOT extension found, AOT torch and CUDA
    std::optional<bool> same_driver_cuda; // the driver's CUDA version
    std::optional<bool> same_gpus;        // GPU model of every GPU, and their count
};

// Pure.
AcrossNodes compare_nodes(const std::vector<NodeFacts>& nodes);

// 255 when a node could not be checked; else 1 when a node has an x (check::exit_status) or the
// nodes differ; else 0.
int cluster_exit_status(const std::vector<NodeFacts>& nodes,
                        const std::vector<Unreachable>& unreachable, const AcrossNodes& across);

} // namespace colossalai::cluster_check
