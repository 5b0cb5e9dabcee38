#pragma once

// The launch intent: how the nodes' jobs start, one alternative per engine (src/engines lists
// the engines). Plain data, decided once by the planner and read by that engine's transports
// and dry run (engines::make_transports, engines::dry_run_header): run/ holds each engine's
// values here without knowing any engine's code. Adding an engine adds its alternative to
// LaunchIntent; every std::visit over it then fails to compile until the engine is handled.
// Each alternative also declares, as its `Given`, the values of the options its engine owns
// (its row's options, run/engine_row.hpp): run::Options holds one of each (EngineOptions).

#include "colossalai/job/host_key_policy.hpp"
#include "colossalai/run/master.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace colossalai::run {

// With --launcher ssh, how the remote nodes are reached: the libssh library linked in, or the
// system's OpenSSH client program (`ssh`), for what libssh cannot do (host certificates, GSSAPI,
// ControlMaster, any option of the user's ssh config).
enum class SshClient { libssh, openssh };

// --launcher ssh (the default): each node is a child process of the launcher (a node whose
// NodeCommand is `local`) or is reached over SSH (ssh::SshTransport over libssh, or
// ssh::OpenSshTransport through the `ssh` program; each builds the node wrapper's command from
// the node's NodeCommand).
struct SshLaunch {
    // The options the ssh engine owns, as given (ssh/engine.cpp reads and checks them).
    struct Given {
        std::optional<Port> ssh_port;        // --ssh-port
        std::optional<SshClient> ssh_client; // --ssh-client libssh|openssh; unset: libssh
        // check's --ssh-timeout (run's is run::Options::ssh_timeout, every engine's); unset: 30 s
        std::optional<std::chrono::milliseconds> ssh_timeout;
        friend bool operator==(const Given&, const Given&) = default;
    };

    // --strict-host-key-checking: replaces the ssh config's StrictHostKeyChecking.
    std::optional<job::HostKeyPolicy> strict_host_key_checking;
    // --ssh-client: which SSH client reaches the remote nodes.
    SshClient ssh_client = SshClient::libssh;
    friend bool operator==(const SshLaunch&, const SshLaunch&) = default;
};

// --launcher slurm: every node is one task of a single srun step (slurm::SlurmTransport builds
// srun's command from the plan and these values); no node is local.
struct SrunLaunch {
    // The options the slurm engine owns, as given (slurm/engine.cpp reads and checks them).
    struct Given {
        // --srun-args "--partition gpu --time 1:00:00", split into words (slurm::parse_srun_args)
        std::optional<std::vector<std::string>> srun_args;
        friend bool operator==(const Given&, const Given&) = default;
    };

    // --srun-args, as words (slurm::parse_srun_args refused the options srun's command sets).
    std::vector<std::string> srun_args;
    // srun allocates the nodes (--num_nodes without hosts, outside an allocation): the plan's
    // hosts are placeholders (`(node 0)`), and each task names its node when it starts.
    bool allocates = false;
    friend bool operator==(const SrunLaunch&, const SrunLaunch&) = default;
};

// Which MPI an mpirun is, from its --version (mpirun::detect_mpi): each has its own options,
// rank variable and stop signals.
enum class MpiKind { open_mpi, hydra };

// --launcher mpirun: every node is one task of a single mpirun (mpirun::MpirunTransport builds
// its command from the plan and these values); no node is local.
struct MpirunLaunch {
    // The options the mpirun engine owns, as given (mpirun/engine.cpp reads and checks them).
    struct Given {
        std::optional<std::string> mpirun; // --mpirun PATH; unset: `mpirun` on PATH
        // --mpirun-args "--mca plm_rsh_agent ssh", split into words (mpirun::parse_mpirun_args)
        std::optional<std::vector<std::string>> mpirun_args;
        friend bool operator==(const Given&, const Given&) = default;
    };

    std::string program;                  // --mpirun PATH, else `mpirun`
    MpiKind mpi = MpiKind::open_mpi;      // what its --version said
    std::vector<std::string> mpirun_args; // --mpirun-args, as words
    friend bool operator==(const MpirunLaunch&, const MpirunLaunch&) = default;
};

using LaunchIntent = std::variant<SshLaunch, SrunLaunch, MpirunLaunch>;

template <class Intent>
struct GivenOf;
template <class... Launch>
struct GivenOf<std::variant<Launch...>> {
    using type = std::tuple<typename Launch::Given...>;
};

// The engine-owned options of `colossalai run` as given, one `Given` per LaunchIntent
// alternative (std::get<SshLaunch::Given>): each engine's row sets and reads its own, and
// refuses another's (engines::validate). Derived from LaunchIntent: no second list of engines.
using EngineOptions = GivenOf<LaunchIntent>::type;

} // namespace colossalai::run
