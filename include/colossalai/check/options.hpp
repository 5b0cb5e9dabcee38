#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
// The engine a cluster check reaches its nodes through (run/engine_row.hpp). Only declared: check
// never looks into it; cluster_check, above run and the engines, does.
struct EngineRow;
} // namespace colossalai::run

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
    // --launcher NAME: its row in the engines' table (engines::find), resolved once by the cli;
    // nullptr: not given, the table's first row (ssh).
    const run::EngineRow* engine = nullptr;
    // The engines' own options, read by the engine chosen (still check's fields, issue #37).
    // --srun-args, as words (slurm::parse_srun_args refused the options srun's command sets).
    std::vector<std::string> srun_args;
    std::optional<int> ssh_port;                  // --ssh-port
    std::chrono::milliseconds ssh_timeout{30000}; // --ssh-timeout SECONDS (connect, per host)

    bool operator==(const Options&) const = default;
};

} // namespace colossalai::check
