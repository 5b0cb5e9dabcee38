#include "colossalai/launch/execute.hpp"

#include "colossalai/exec/signals.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/launch/launcher.hpp"
#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/util/error.hpp"

#include <fmt/core.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

namespace colossalai::launch {

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

// COLOSSALAI_TIMING: where the time went (SSH hosts) and what the launcher held at its peak.
void report_resources(output::Multiplexer& output, const std::string& ssh_timing) {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    output.write_notice(ssh_timing);
    output.write_notice(
        fmt::format("colossalai: peak RSS {:.1f} MiB, CPU {:.0f} ms user + {:.0f} ms "
                    "system\n",
                    static_cast<double>(usage.ru_maxrss) / 1024.0,
                    static_cast<double>(usage.ru_utime.tv_sec) * 1000.0 +
                        static_cast<double>(usage.ru_utime.tv_usec) / 1000.0,
                    static_cast<double>(usage.ru_stime.tv_sec) * 1000.0 +
                        static_cast<double>(usage.ru_stime.tv_usec) / 1000.0));
}

} // namespace

int execute(const run::Plan& plan) {
    const auto* hosts = std::get_if<run::HostsLaunch>(&plan.launch);
    const auto* srun_launch = std::get_if<run::SrunLaunch>(&plan.launch);
    std::size_t remote_nodes = 0;
    if (hosts != nullptr) {
        remote_nodes = static_cast<std::size_t>(
            std::count_if(plan.nodes.begin(), plan.nodes.end(),
                          [](const job::NodeCommand& node) { return !node.local; }));
    }
    bool openssh = hosts != nullptr && hosts->ssh_client == run::SshClient::openssh;
    allow_descriptors_for(remote_nodes, openssh ? 4 : 2);

    // Blocked before any thread exists, so that every thread inherits the mask.
    exec::SignalChannel signals({.job_control = true});
    Settings settings;
    settings.kill_grace = plan.timings.kill_grace;
    settings.log_dir = plan.log_dir;
    if (plan.elastic) {
        settings.min_nodes = static_cast<std::size_t>(plan.elastic->nodes.min);
    }
    output::Multiplexer::Options output_options;
    output_options.prefixed = plan.nodes.size() > 1;
    output::Multiplexer output(output_options);
    SignalSource source{signals.fd(), [&signals] { return signals.take(); }};
    // After `output`, which its nodes write to until it ends.
    // The transports of the plan's launch intent: local children and SSH, or one srun.
    std::optional<job::LocalTransport> local;
    std::optional<ssh::SshTransport> ssh;
    std::optional<ssh::OpenSshTransport> openssh_transport;
    std::optional<slurm::SlurmTransport> srun;
    if (hosts != nullptr) {
        local.emplace(plan.launcher_environment, settings.kill_grace);
        if (remote_nodes > 0) {
            ssh::SshSettings ssh_settings =
                ssh::ssh_settings(plan.timings.ssh_timeout, settings.kill_grace);
            ssh_settings.connect.host_key_policy = hosts->strict_host_key_checking;
            switch (hosts->ssh_client) {
            case run::SshClient::libssh:
                ssh.emplace(ssh_settings);
                break;
            case run::SshClient::openssh:
                openssh_transport.emplace(ssh_settings, plan.launcher_environment);
                break;
            }
        }
    } else if (srun_launch != nullptr) {
        srun.emplace(plan, *srun_launch,
                     [&output](std::string_view text) { output.write_notice(text); });
    }
    auto transport_for = [&](const job::NodeCommand& node) -> job::Transport& {
        if (srun) {
            return *srun;
        }
        if (node.local) {
            return *local;
        }
        return openssh_transport ? static_cast<job::Transport&>(*openssh_transport) : *ssh;
    };

    LaunchResult result = run_nodes(plan.nodes, transport_for, output, source, settings);
    output.write_notice(render_summary(result.outcomes));
    if (plan.log_dir) {
        output.write_notice(
            fmt::format("colossalai: the nodes' output is also in {}/\n", *plan.log_dir));
    }
    if (plan.report_resources) {
        report_resources(output, ssh                 ? ssh->timing_report()
                                 : openssh_transport ? openssh_transport->timing_report()
                                                     : std::string());
    }
    // What the outputs have not taken yet (a paused pager) is written now, the jobs being over;
    // a signal to the launcher while it waits for that ends the wait.
    output.finish(signals.fd());
    if (ssh && ssh->busy()) {
        // A connection given up on is still being set up on a worker thread: leave now rather
        // than wait for its timeout (closing the process closes every connection).
        std::fflush(nullptr);
        ::_exit(result.exit_code);
    }
    return result.exit_code;
}

} // namespace colossalai::launch
