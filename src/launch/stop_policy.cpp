#include "colossalai/launch/stop_policy.hpp"

namespace colossalai::launch {

NodeEnd classify_node_end(std::optional<std::size_t> min_nodes, bool success,
                          std::size_t still_running) {
    if (success) {
        return NodeEnd::finished;
    }
    if (min_nodes && still_running >= *min_nodes) {
        return NodeEnd::left;
    }
    return NodeEnd::failed;
}

} // namespace colossalai::launch
