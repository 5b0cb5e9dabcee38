#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::run {

// One environment variable to pass to every node.
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

// Everything needed to start one node's job, whatever the transport. Pure data.
struct NodeCommand {
    std::string host;                // as the user wrote it (hostfile / --host); prefix + summary
    int rank = 0;                    // node rank = position in the final host list
    bool local = false;              // started as a child process, without SSH
    std::vector<std::string> argv;   // torchrun ... SCRIPT ARGS..., one word per element
    std::vector<EnvVar> environment; // what a remote node exports, sorted by name
    // --env-file, -x, --env-exclude: a local node (and srun) gets the launcher's whole
    // environment with these changes instead of `environment`.
    EnvironmentChanges environment_changes;
    std::string working_directory; // absolute path of the launcher's current directory
    std::optional<int> ssh_port;   // --ssh-port
    // `host` split for SSH: the user of a `user@host` name (else the ssh config's or the
    // current user), and the address to connect to, without `user@` and IPv6 brackets.
    // A host with a user part is never local: the user asked for a login as someone.
    std::optional<std::string> user;
    std::string address;
};

// What `colossalai run` will do: the node commands in rank order, plus warnings to print
// (one line each) before anything starts.
struct Plan {
    std::vector<NodeCommand> nodes;
    std::vector<std::string> warnings;
    // Lines that say what was decided for the user (where the hosts came from), printed
    // before anything starts.
    std::vector<std::string> notices;
    // The PyTorch version that chose the command form (normalised, "2.1.0"); nullopt when
    // PyTorch was not found and a current one (>= 2.0, torchrun) is assumed.
    std::optional<std::string> torch_version;
    // --launcher slurm: the one srun that runs every node (run/srun_command.hpp); else empty.
    std::vector<std::string> srun_command;
    // --log-dir, absolute: each node's stdout and stderr are also written to
    // `<rank>-<host>.out` / `.err` there.
    std::optional<std::string> log_dir;
};

} // namespace colossalai::run
