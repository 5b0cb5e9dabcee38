#include "colossalai/step/probe.hpp"

#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

#include <type_traits>
#include <variant>

namespace colossalai::step {

std::vector<job::NodeCommand> probe_nodes(const std::vector<std::string>& hosts,
                                          const std::vector<std::string>& argv,
                                          const std::string& working_directory) {
    std::vector<job::NodeCommand> nodes;
    for (std::size_t rank = 0; rank < hosts.size(); ++rank) {
        job::NodeCommand node;
        node.host = hosts[rank];
        node.address = hosts[rank];
        node.rank = static_cast<int>(rank);
        node.argv = argv;
        node.working_directory = working_directory;
        nodes.push_back(std::move(node));
    }
    return nodes;
}

bool take_probe_line(const TaskLine& said, const std::vector<job::NodeCommand>& nodes,
                     std::vector<ProbeAnswer>& answers) {
    return std::visit(
        [&](const auto& line) {
            using Said = std::decay_t<decltype(line)>;
            if constexpr (std::is_same_v<Said, Foreign>) {
                return false;
            } else {
                if (line.rank >= nodes.size()) {
                    return true;
                }
                ProbeAnswer& answer = answers[line.rank];
                if constexpr (std::is_same_v<Said, Started>) {
                    answer.started = true;
                } else if (!answer.started) {
                    return true;
                } else if constexpr (std::is_same_v<Said, Frame>) {
                    answer.output += line.bytes;
                } else if constexpr (std::is_same_v<Said, Failed>) {
                    if (std::optional<job::PreflightFailure> failure =
                            job::parse_failed_check(line.what, nodes[line.rank])) {
                        answer.failure = std::move(failure);
                    }
                } else if constexpr (std::is_same_v<Said, Exited>) {
                    answer.exit_status = line.status;
                } // a notice (Noticed), a rendezvous result or a ready marker (Ready): the
                  // probe's tasks read no PyTorch pair, run no rendezvous check and never wait
                  // to be let go
                return true;
            }
        },
        said);
}

std::vector<ProbeReply> probe_replies(std::vector<ProbeAnswer> answers, std::string_view launcher,
                                      const exec::CaptureResult& run,
                                      std::chrono::milliseconds timeout,
                                      const std::vector<std::string>& launcher_lines) {
    std::vector<ProbeReply> replies(answers.size());
    if (!run.started) {
        for (ProbeReply& reply : replies) {
            reply.error = fmt::format("cannot run {}: {}", launcher, run.error);
        }
        return replies;
    }
    // How the launcher ended, with its last line, for the nodes that did not answer.
    std::string end;
    if (run.timed_out) {
        end = fmt::format("no answer within {} s; {} was stopped",
                          std::chrono::ceil<std::chrono::seconds>(timeout).count(), launcher);
    } else if (run.signal != 0) {
        end = fmt::format("{} was killed by {}", launcher, util::signal_name(run.signal));
    } else {
        end = fmt::format("{} exited with status {}", launcher, run.exit_code);
    }
    if (!launcher_lines.empty()) {
        end += ": " + launcher_lines.back();
    }
    for (std::size_t i = 0; i < answers.size(); ++i) {
        ProbeAnswer& answer = answers[i];
        if (!answer.started) {
            replies[i].error = fmt::format("{} started no check there ({})", launcher, end);
        } else if (answer.failure) {
            replies[i].error = job::describe(*answer.failure);
        } else {
            std::string status =
                answer.exit_status ? fmt::format("exit status {}", *answer.exit_status) : end;
            replies[i].output = std::move(answer.output);
            replies[i].error = fmt::format("the check printed nothing there ({})", status);
        }
    }
    return replies;
}

} // namespace colossalai::step
