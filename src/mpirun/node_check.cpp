#include "colossalai/mpirun/node_check.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/step/task_script.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::mpirun {

namespace {

// How long mpirun may take to start its tasks beyond the probes' time (its daemons, over ssh):
// as long as an SSH check allows by default for its connections.
constexpr std::chrono::milliseconds check_setup_time = std::chrono::seconds(30);

} // namespace

std::string check_task_script(const std::vector<job::NodeCommand>& nodes, run::MpiKind mpi) {
    const job::NodeCommand& first = nodes.front();
    std::string_view variable = rank_variable(mpi);
    std::string script = fmt::format("r=${{{}-}}\ncase $r in\n", variable);
    for (const job::NodeCommand& node : nodes) {
        script += fmt::format("{}) a={} ;;\n", node.rank, util::shell_quote(node.address));
    }
    script += fmt::format("*) echo \"colossalai: mpirun gave this task the rank '$r' ({}), not "
                          "one of the check's {} nodes\" >&2; exit 127 ;;\nesac\n",
                          variable, nodes.size());
    // Whatever the check did, the task ends well: its status is in the exit marker.
    script += "trap 'exit 0' EXIT\n";
    script += step::start_marker_shell("\"$r\"", "mpirun", "\"$a\"");
    script += step::failed_check_shell("\"$r\"");
    script += step::task_preflight_shell(first, false, run::broken_pair());
    script += placement_check_shell();
    // Every frame a packet of its own on stderr (relay.hpp): Open MPI gives a task a pty for
    // stdout, whose reads may cut a frame.
    script +=
        step::task_relay_shell(first, false, step::RelayChannel::stderr_packets) + " <&0\ns=$?\n";
    script += step::exit_marker_shell("\"$r\"", "\"$s\"");
    return script;
}

CheckOutput read_check_output(std::string_view output, const std::vector<job::NodeCommand>& nodes) {
    CheckOutput read;
    read.answers.resize(nodes.size());
    // Whole lines, their \r kept (a frame's bytes are the program's); a last line without a
    // newline is read too. mpirun adds no label: a line is a task's by its rank.
    for (std::size_t begin = 0; begin < output.size();) {
        std::size_t end = std::min(output.find('\n', begin), output.size());
        std::string_view line = output.substr(begin, end - begin);
        begin = end + 1;
        if (step::take_probe_line(step::read_task_line(line), nodes, read.answers)) {
            continue;
        }
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!util::trim(line).empty()) {
            read.mpirun_lines.push_back(util::escape_control_bytes(line));
        }
    }
    return read;
}

std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request,
                                        const run::MpirunLaunch& launch) {
    std::vector<std::string> names;
    for (const run::Host& host : request.hosts) {
        names.push_back(host.name);
    }
    // The root directory: the check reads nothing of the launcher's, whose directory may not
    // exist on the nodes.
    std::vector<job::NodeCommand> nodes = step::probe_nodes(names, request.node_argv, "/");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        nodes[i].address = request.hosts[i].address;
    }
    std::chrono::milliseconds timeout = 4 * request.probe_timeout + check_setup_time;
    // mpirun runs in a process group of its own: Ctrl-C and the deadline send it SIGTERM, on
    // which it ends its tasks.
    exec::StopCapturesOnSignal stop_captures;
    exec::CaptureResult mpirun =
        exec::capture(mpirun_tasks_command(nodes, launch, check_task_script(nodes, launch.mpi)),
                      timeout, std::nullopt, request.max_answer_bytes * request.hosts.size(),
                      {.stderr_to = exec::Stderr::merge, .stop = exec::Stop::terminate});
    CheckOutput output = read_check_output(mpirun.started ? mpirun.output : "", nodes);
    std::vector<run::NodeReply> replies;
    for (step::ProbeReply& reply : step::probe_replies(std::move(output.answers), "mpirun", mpirun,
                                                       timeout, output.mpirun_lines)) {
        replies.push_back({std::move(reply.output), std::move(reply.error)});
    }
    return replies;
}

} // namespace colossalai::mpirun
