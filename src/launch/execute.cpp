#include "colossalai/launch/execute.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/exec/signals.hpp"
#include "colossalai/launch/launcher.hpp"
#include "colossalai/util/error.hpp"

#include <fmt/core.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

namespace colossalai::launch {

namespace {

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
    // The transports of the plan's launch intent, made by its engine.
    std::unique_ptr<job::LaunchTransports> transports = engines::make_transports(
        plan, {.notice = [&output](std::string_view text) { output.write_notice(text); }});
    auto transport_for = [&transports](const job::NodeCommand& node) -> job::Transport& {
        return transports->transport_for(node);
    };

    LaunchResult result = run_nodes(plan.nodes, transport_for, output, source, settings);
    output.write_notice(render_summary(result.outcomes));
    if (plan.log_dir) {
        output.write_notice(
            fmt::format("colossalai: the nodes' output is also in {}/\n", *plan.log_dir));
    }
    if (plan.report_resources) {
        report_resources(output, transports->timing_report());
    }
    // What the outputs have not taken yet (a paused pager) is written now, the jobs being over;
    // a signal to the launcher while it waits for that ends the wait.
    output.finish(signals.fd());
    if (transports->busy()) {
        // A connection given up on is still being set up on a worker thread: leave now rather
        // than wait for its timeout (closing the process closes every connection).
        std::fflush(nullptr);
        ::_exit(result.exit_code);
    }
    return result.exit_code;
}

} // namespace colossalai::launch
