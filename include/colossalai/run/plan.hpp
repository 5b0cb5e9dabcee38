#pragma once

#include "colossalai/job/host_key_policy.hpp"
#include "colossalai/job/node_command.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/options.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

// The planner makes the job module's node commands.
using job::EnvironmentChanges;
using job::EnvSetting;
using job::EnvVar;
using job::NodeCommand;

// How long the launcher waits, from --kill-grace and --ssh-timeout.
struct Timings {
    // After SIGTERM (fail-fast) or a signal passed on to the nodes: how long they get before
    // SIGKILL; also the grace of the remote wrapper and of srun.
    std::chrono::milliseconds kill_grace{10000};
    // Connecting to one SSH host; the liveness limits of a running connection follow from it
    // (ssh::ssh_settings).
    std::chrono::milliseconds ssh_timeout{30000};
    friend bool operator==(const Timings&, const Timings&) = default;
};

// What `colossalai run` will do: the node commands in rank order, plus warnings to print
// (one line each) before anything starts. Everything launch::execute needs: it reads neither
// the options nor the launcher's environment again.
struct Plan {
    std::vector<job::NodeCommand> nodes;
    std::vector<std::string> warnings;
    // Lines that say what was decided for the user (where the hosts came from), printed
    // before anything starts.
    std::vector<std::string> notices;
    // The PyTorch version that chose the command form (normalised, "2.1.0"); nullopt when
    // PyTorch was not found and a current one (>= 2.0, torchrun) is assumed.
    std::optional<std::string> torch_version;
    // Which engine starts the nodes' jobs, with its own values (launch_intent.hpp): decided
    // once by the planner, the only thing that chooses a transport.
    LaunchIntent launch;
    // --log-dir, absolute: each node's stdout and stderr are also written to
    // `<rank>-<host>.out` / `.err` there.
    std::optional<std::string> log_dir;
    // The launcher's environment (`NAME=value`) as prepare() read it, once, with the variables
    // the launcher adds unless the user set them (run::with_launcher_defaults:
    // PYTHONUNBUFFERED=1). A local node's environment and srun's are this one with the node's
    // changes (job/local_environment.hpp); the remote nodes' `environment` is filtered from it.
    std::vector<std::string> launcher_environment;
    Timings timings;
    // An elastic launch (--nnodes MIN:MAX, a rendezvous option): every node's torchrun meets at
    // this rendezvous, and the launcher lets nodes leave while `elastic->nodes.min` remain.
    // nullopt: a static launch, where the first node that fails stops the others.
    std::optional<ElasticPlan> elastic;
    // The rendezvous check before any job starts (who listens, where the others connect, the
    // launch's token); nullopt: none (--no-rendezvous-check, or a single node).
    std::optional<job::RendezvousPlan> rendezvous;
    // COLOSSALAI_TIMING set and not empty in the launcher's environment: the end reports where
    // the time went (SSH hosts) and the launcher's peak resources.
    bool report_resources = false;
};

} // namespace colossalai::run
