#pragma once

#include <optional>
#include <string>

namespace colossalai::check {

// `colossalai check` as the user asked for it, as far as this module reads it. The engine that a
// check of nodes goes through, and its options, are run::CheckOptions' (run/engine_row.hpp),
// which cluster_check, above run and the engines, reads.
struct Options {
    bool installation = false;         // -i / --installation
    bool json = false;                 // --json (implies --installation)
    std::optional<std::string> python; // --python PATH
    // Cluster mode (src/cluster_check): the nodes to check over SSH, as for `colossalai run`.
    std::optional<std::string> host;     // --host / -H "h1,h2"
    std::optional<std::string> hostfile; // --hostfile PATH
    // --allocation: the nodes of the Slurm allocation or PBS job this runs in. Never implied:
    // `srun colossalai check -i` inside an allocation checks each task's own node.
    bool allocation = false;

    bool operator==(const Options&) const = default;
};

} // namespace colossalai::check
