#include "colossalai/slurm/node_check.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/slurm/srun_probe.hpp"
#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

namespace colossalai::slurm {

namespace {

// How long srun may take to set up its step beyond the probes' time: as long as an SSH check
// allows by default for its connections (--ssh-timeout is not srun's).
constexpr std::chrono::milliseconds step_setup_time = std::chrono::seconds(30);

} // namespace

std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request) {
    std::vector<std::string> names;
    for (const run::Host& host : request.hosts) {
        names.push_back(host.name);
    }
    // The root directory: the check reads nothing of the launcher's, whose directory may not
    // exist on the nodes.
    std::vector<job::NodeCommand> nodes = probe_nodes(names, request.node_argv, "/");
    // The probes' time, plus the step's setup: srun sets up the step and may wait for the
    // allocation's CPUs; then srun is stopped.
    std::chrono::milliseconds timeout = 4 * request.probe_timeout + step_setup_time;
    // srun runs in a process group of its own: Ctrl-C and the deadline send it SIGTERM, on which
    // srun cancels its step (a SIGKILLed srun leaves the step running until its tasks end).
    exec::StopCapturesOnSignal stop_captures;
    exec::CaptureResult srun = exec::capture(
        build_srun_command(nodes, std::get<run::SrunLaunch::Given>(request.options.engine_options)
                                      .srun_args.value_or(std::vector<std::string>{})),
        timeout, std::nullopt, request.max_answer_bytes * request.hosts.size(),
        {.stderr_to = exec::Stderr::merge, .stop = exec::Stop::terminate});
    std::vector<run::NodeReply> replies(request.hosts.size());
    if (!srun.started) {
        for (run::NodeReply& reply : replies) {
            reply.error = fmt::format("cannot run srun: {}", srun.error);
        }
        return replies;
    }
    ProbeOutput output = read_probe_output(srun.output, nodes);
    // How srun ended, with its last line, for the nodes that did not answer.
    std::string srun_end;
    if (srun.timed_out) {
        srun_end = fmt::format("no answer within {} s; srun was stopped",
                               std::chrono::ceil<std::chrono::seconds>(timeout).count());
    } else if (srun.signal != 0) {
        srun_end = fmt::format("srun was killed by {}", util::signal_name(srun.signal));
    } else {
        srun_end = fmt::format("srun exited with status {}", srun.exit_code);
    }
    if (!output.srun_lines.empty()) {
        srun_end += ": " + output.srun_lines.back();
    }
    for (std::size_t i = 0; i < request.hosts.size(); ++i) {
        ProbeAnswer& answer = output.answers[i];
        if (!answer.started) {
            replies[i].error = fmt::format("srun started no check there ({})", srun_end);
        } else if (answer.failure) {
            replies[i].error = job::describe(*answer.failure);
        } else {
            std::string status =
                answer.exit_status ? fmt::format("exit status {}", *answer.exit_status) : srun_end;
            replies[i].output = std::move(answer.output);
            replies[i].error = fmt::format("the check printed nothing there ({})", status);
        }
    }
    return replies;
}

} // namespace colossalai::slurm
