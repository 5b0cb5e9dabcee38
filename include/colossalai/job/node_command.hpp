#pragma once

#include "colossalai/job/preflight.hpp"
#include "colossalai/job/shared_vector.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colossalai::job {

// The variable that names a node's GPUs to CUDA, set from a GPU selection (--include w0:0,1).
inline constexpr std::string_view cuda_visible_devices = "CUDA_VISIBLE_DEVICES";

// One environment variable to pass to a node.
using EnvVar = std::pair<std::string, std::string>;

// A variable set by --env-file or -x, with where it was set (`-x`, `FILE:LINE`).
struct EnvSetting {
    std::string name;
    std::string value;
    std::string source;
    friend bool operator==(const EnvSetting&, const EnvSetting&) = default;
};

// What --env-file, -x and --env-exclude change in the environment every node gets
// (run/env_control.hpp). The same on every node.
struct EnvironmentChanges {
    std::vector<EnvSetting> set;       // one per name, sorted by name: also set on local nodes
    std::vector<std::string> dropped;  // the launcher's variables not exported, sorted
    std::vector<std::string> patterns; // --env-exclude's patterns, as given
    bool empty() const { return set.empty() && patterns.empty(); }
};

// Where a node's command holds the words that differ from node to node, as the planner built it
// (run::launch_command): the Slurm transport's task script puts each task's own values there
// rather than searching the words.
struct NodeWords {
    std::size_t node_rank = 0; // `--node_rank=R`
    // `--master_addr=A` when A is node 0's own host because no master address was given (a
    // placeholder when srun allocates the nodes); nullopt when the user gave the address.
    std::optional<std::size_t> implicit_master;
    friend bool operator==(const NodeWords&, const NodeWords&) = default;
};

// Everything needed to start one node's job, whatever the transport. Pure data, made by the
// planner (run::Plan), read by the transports.
struct NodeCommand {
    std::string host;               // as the user wrote it (hostfile / --host); prefix + summary
    int rank = 0;                   // node rank = position in the final host list
    bool local = false;             // started as a child process, without SSH
    std::vector<std::string> argv;  // torchrun ... SCRIPT ARGS..., one word per element
    std::optional<NodeWords> words; // where argv's per-node words are; nullopt: it has none
    // What a remote node exports, sorted by name. The planner gives every node the same one:
    // shared, not copied (100,000 nodes).
    SharedVector<EnvVar> environment;
    // The launcher's variables that describe its own Slurm task and node (inside an allocation:
    // SLURM_PROCID, SLURMD_NODENAME, ...; run::is_slurm_identity_variable, scheduler_hosts.hpp),
    // left out of `environment`: another node is not the launcher's. Sorted; the dry run lists
    // them.
    std::vector<std::string> withheld_environment;
    // --env-file, -x, --env-exclude: a local node (and srun) gets the launcher's whole
    // environment with these changes instead of `environment`.
    EnvironmentChanges environment_changes;
    // Variables that the launcher's flags set (--network-interface; CUDA_VISIBLE_DEVICES of a
    // GPU selection, from `gpus`), local nodes too, over `environment` and the launcher's own.
    std::vector<EnvVar> flag_environment;
    // The GPUs --include / --exclude selected on this node, in the order its processes use them
    // (one process each); nullopt when the launch named no GPU index.
    std::optional<std::vector<int>> gpus;
    std::string working_directory; // absolute path of the launcher's current directory
    std::optional<int> ssh_port;   // --ssh-port
    // `host` split for SSH: the user of a `user@host` name (else the ssh config's or the
    // current user), and the address to connect to, without `user@` and IPv6 brackets.
    // A host with a user part is never local: the user asked for a login as someone.
    std::optional<std::string> user;
    std::string address;
    // What the node checks before its job may start (argv[0] and the working directory too).
    Preflight preflight;
};

} // namespace colossalai::job
