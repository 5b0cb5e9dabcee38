#pragma once

// The launcher's stop policy: what a node's end means for the others, once the jobs started.
// A static launch stops every node at the first failure (fail-fast); an elastic one (torchrun's
// --nnodes MIN:MAX) lets a node leave while at least MIN nodes still run, since torchrun's
// rendezvous carries on without it.

#include <cstddef>
#include <optional>

namespace colossalai::launch {

enum class NodeEnd {
    finished, // the job ended well on this node
    left,     // it failed or was lost, and the job goes on without it
    failed,   // it failed: the job has failed, the others are stopped (fail-fast)
};

// How a node's end counts. `min_nodes`: the elastic launch's MIN, nullopt for a static launch;
// `success`: the node's job ended with status 0; `still_running`: the nodes whose jobs still run,
// not counting this one.
NodeEnd classify_node_end(std::optional<std::size_t> min_nodes, bool success,
                          std::size_t still_running);

} // namespace colossalai::launch
