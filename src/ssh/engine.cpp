#include "colossalai/ssh/engine.hpp"

#include "colossalai/job/local_transport.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/ssh/node_check.hpp"
#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

namespace colossalai::ssh {

namespace {

// A host connecting over libssh holds two descriptors (its socket and an eventfd), a running one
// one; through the ssh program four (its stdin, stdout and stderr pipes, a pidfd): with the usual
// soft limit of 1024 a job of some 500 (250) hosts would run out. Raised only as far as the hard
// limit allows, and only when needed, since local jobs inherit it.
void allow_descriptors_for(std::size_t remote_nodes, std::size_t per_node) {
    rlimit limit{};
    rlim_t wanted = static_cast<rlim_t>(remote_nodes * per_node) + 64;
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        limit.rlim_cur < wanted) {
        limit.rlim_cur =
            limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
}

// How many of `plan`'s nodes are remote.
std::size_t remote_nodes_of(const run::Plan& plan) {
    return static_cast<std::size_t>(
        std::count_if(plan.nodes.begin(), plan.nodes.end(),
                      [](const job::NodeCommand& node) { return !node.local; }));
}

// Local nodes as children, the remote ones over the client the launch names (none without
// remote nodes).
class SshLaunchTransports : public job::LaunchTransports {
public:
    SshLaunchTransports(const run::Plan& plan, const run::SshLaunch& launch, job::LaunchHooks hooks)
        : m_local(plan.launcher_environment, plan.timings.kill_grace,
                  // A node on this machine takes its part as the remote ones do, in the same
                  // turns; alone (every node local) the launcher checks before execute().
                  rendezvous_way(plan) == job::RendezvousWay::transports ? plan.rendezvous
                                                                         : std::nullopt,
                  hooks.notice) {
        std::size_t remote_nodes = remote_nodes_of(plan);
        allow_descriptors_for(remote_nodes, launch.ssh_client == run::SshClient::openssh ? 4 : 2);
        if (remote_nodes == 0) {
            return;
        }
        SshSettings settings = ssh_settings(plan.timings.ssh_timeout, plan.timings.kill_grace);
        settings.connect.host_key_policy = launch.strict_host_key_checking;
        settings.notice = std::move(hooks.notice);
        if (rendezvous_way(plan) == job::RendezvousWay::transports) { // after the barrier
            settings.rendezvous = plan.rendezvous;
        }
        switch (launch.ssh_client) {
        case run::SshClient::libssh:
            m_remote.emplace<SshTransport>(settings);
            break;
        case run::SshClient::openssh:
            m_remote.emplace<OpenSshTransport>(settings, plan.launcher_environment);
            break;
        }
    }

    job::Transport& transport_for(const job::NodeCommand& node) override {
        if (node.local) {
            return m_local;
        }
        return std::visit(
            [](auto& remote) -> job::Transport& {
                if constexpr (std::is_same_v<std::decay_t<decltype(remote)>, std::monostate>) {
                    throw std::logic_error("a remote node in a plan without remote nodes");
                } else {
                    return remote;
                }
            },
            m_remote);
    }

    std::string timing_report() const override {
        return std::visit(
            [](const auto& remote) -> std::string {
                if constexpr (std::is_same_v<std::decay_t<decltype(remote)>, std::monostate>) {
                    return {};
                } else {
                    return remote.timing_report();
                }
            },
            m_remote);
    }

    bool busy() const override {
        const auto* libssh = std::get_if<SshTransport>(&m_remote);
        return libssh != nullptr && libssh->busy();
    }

private:
    job::LocalTransport m_local;
    // The remote nodes' client; monostate when every node is local.
    std::variant<std::monostate, SshTransport, OpenSshTransport> m_remote;
};

// Its own part of the engine options (run::Options::engine_options,
// run::CheckOptions::engine_options).
run::SshLaunch::Given& given(run::EngineOptions& options) {
    return std::get<run::SshLaunch::Given>(options);
}
const run::SshLaunch::Given& given(const run::EngineOptions& options) {
    return std::get<run::SshLaunch::Given>(options);
}

void set_ssh_port(run::EngineOptions& options, std::string_view name, const std::string& value) {
    given(options).ssh_port = run::parse_port(value, name);
}

void set_ssh_client(run::EngineOptions& options, std::string_view name, const std::string& value) {
    if (value != "libssh" && value != "openssh") {
        throw usage_error("{} '{}': expected libssh or openssh", name,
                          util::escape_for_message(value));
    }
    given(options).ssh_client =
        value == "libssh" ? run::SshClient::libssh : run::SshClient::openssh;
}

// check's --ssh-timeout (run's is a general option, which every engine's plan carries).
void set_ssh_timeout(run::EngineOptions& options, std::string_view name, const std::string& value) {
    given(options).ssh_timeout = util::parse_seconds(value, name, connect_timeout_range);
}

constexpr run::EngineOption ssh_options[] = {
    {.name = "--ssh-port",
     .run = {.value_name = "PORT",
             .help = "SSH port for every host (else ~/.ssh/config, else 22)",
             .follows = "--extra_launch_args"},
     // CLI11's name for an integer in a range, as check's --help has always shown it.
     .check = {.value_name = "INT:INT in [1 - 65535]",
               .help = "SSH port for every node (else ~/.ssh/config, else 22)",
               .follows = "--srun-args"},
     .apply = set_ssh_port,
     .given =
         [](const run::EngineOptions& options) { return given(options).ssh_port.has_value(); }},
    {.name = "--ssh-client",
     .run = {.value_name = "libssh|openssh",
             .default_shown = "libssh",
             .help = "How the remote nodes are reached: libssh (built in), or openssh (the ssh "
                     "program, in BatchMode, with all of ~/.ssh/config: host certificates, GSSAPI, "
                     "ControlMaster)",
             .follows = "--strict-host-key-checking"},
     .apply = set_ssh_client,
     .given =
         [](const run::EngineOptions& options) { return given(options).ssh_client.has_value(); }},
    {.name = "--ssh-timeout",
     .check = {.value_name = "SECONDS",
               .default_shown = "30",
               .help = "SSH connect timeout per node",
               .follows = "--ssh-port"},
     .apply = set_ssh_timeout,
     .given =
         [](const run::EngineOptions& options) { return given(options).ssh_timeout.has_value(); }},
};

std::string refuse_for_ssh(std::string_view option, std::string_view owner) {
    return fmt::format("{} needs --launcher {}", option, owner);
}

std::string refuse_for_ssh_check(std::span<const std::string_view> options,
                                 std::string_view owner) {
    return fmt::format("{} {} --launcher {}", fmt::join(options, " and "),
                       options.size() == 1 ? "needs" : "need", owner);
}

// Each remote node over the client chosen, with the host key policy and the port given.
run::LaunchIntent ssh_launch(const run::Options& options, bool, run::Plan& plan) {
    const run::SshLaunch::Given& own = given(options.engine_options);
    if (own.ssh_port) {
        for (job::NodeCommand& node : plan.nodes) {
            node.ssh_port = own.ssh_port->number;
        }
    }
    return run::SshLaunch{.strict_host_key_checking = options.strict_host_key_checking,
                          .ssh_client = own.ssh_client.value_or(run::SshClient::libssh)};
}

constexpr run::EngineRow ssh_row{.name = "ssh",
                                 .options = ssh_options,
                                 .run_gloss = "local children and SSH",
                                 .refuse = refuse_for_ssh,
                                 .reaches_hosts = true,
                                 .withholds_job_identity = true,
                                 .launch = ssh_launch,
                                 .check_nodes = check_nodes,
                                 .check_refuse = refuse_for_ssh_check};

} // namespace

const run::EngineRow& engine_row() {
    return ssh_row;
}

job::RendezvousWay rendezvous_way(const run::Plan& plan) {
    if (!plan.rendezvous) {
        return job::RendezvousWay::none;
    }
    return remote_nodes_of(plan) == 0 ? job::RendezvousWay::launcher
                                      : job::RendezvousWay::transports;
}

std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::SshLaunch& launch, job::LaunchHooks hooks) {
    return std::make_unique<SshLaunchTransports>(plan, launch, std::move(hooks));
}

std::string dry_run_transport(const run::SshLaunch& launch, const job::NodeCommand& node) {
    if (node.local) {
        return "local";
    }
    std::string client = launch.ssh_client == run::SshClient::openssh ? "openssh" : "ssh";
    return node.ssh_port ? fmt::format("{} port {}", client, *node.ssh_port) : client;
}

} // namespace colossalai::ssh
