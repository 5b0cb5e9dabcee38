#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::check {

// How a cluster check reaches its nodes (--launcher), chosen once where the options are read.
enum class Launcher {
    ssh,   // one SSH connection per node (the default)
    slurm, // one srun step of one task per node (slurm/srun_probe.hpp)
};

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
    Launcher launcher = Launcher::ssh;
    // --srun-args, as words (slurm::parse_srun_args refused the options srun's command sets).
    std::vector<std::string> srun_args;
    std::optional<int> ssh_port;                  // --ssh-port
    std::chrono::milliseconds ssh_timeout{30000}; // --ssh-timeout SECONDS (connect, per host)

    // --launcher slurm alone checks the nodes of the Slurm allocation this runs in.
    bool cluster() const {
        return host.has_value() || hostfile.has_value() || allocation ||
               launcher == Launcher::slurm;
    }

    bool operator==(const Options&) const = default;
};

} // namespace colossalai::check
