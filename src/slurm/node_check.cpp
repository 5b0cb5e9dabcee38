#include "colossalai/slurm/node_check.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/slurm/srun_probe.hpp"

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
    ProbeOutput output = srun.started ? read_probe_output(srun.output, nodes) : ProbeOutput{{}, {}};
    output.answers.resize(nodes.size());
    std::vector<run::NodeReply> replies;
    for (step::ProbeReply& reply :
         step::probe_replies(std::move(output.answers), "srun", srun, timeout, output.srun_lines)) {
        replies.push_back({std::move(reply.output), std::move(reply.error)});
    }
    return replies;
}

} // namespace colossalai::slurm
