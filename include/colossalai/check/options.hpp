#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace colossalai::check {

// `colossalai check` as the user asked for it.
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
    std::optional<int> ssh_port;                  // --ssh-port
    std::chrono::milliseconds ssh_timeout{30000}; // --ssh-timeout SECONDS (connect, per host)

    bool cluster() const { return host.has_value() || hostfile.has_value() || allocation; }
};

} // namespace colossalai::check
