#include "colossalai/slurm/srun_probe.hpp"

#include "task_lines.hpp"

#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/strings.hpp"

#include <type_traits>
#include <variant>

namespace colossalai::slurm {

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

ProbeOutput read_probe_output(std::string_view srun_output,
                              const std::vector<job::NodeCommand>& nodes) {
    ProbeOutput output;
    output.answers.resize(nodes.size());
    std::size_t begin = 0;
    while (begin < srun_output.size()) {
        // Whole lines, their \r kept (a frame's bytes are the program's); a last line without a
        // newline is read too.
        std::size_t end = srun_output.find('\n', begin);
        if (end == std::string_view::npos) {
            end = srun_output.size();
        }
        std::string_view line = srun_output.substr(begin, end - begin);
        begin = end + 1;
        std::optional<LabelledLine> labelled = parse_labelled_line(line);
        if (!labelled) {
            if (!line.empty() && line.back() == '\r') {
                line.remove_suffix(1);
            }
            if (!util::trim(line).empty()) {
                output.srun_lines.push_back(util::escape_control_bytes(line));
            }
            continue;
        }
        // Each line of a task's says its node's rank; a node counts from its start marker on.
        std::visit(
            [&](const auto& said) {
                using Said = std::decay_t<decltype(said)>;
                if constexpr (!std::is_same_v<Said, step::Foreign>) {
                    if (said.rank >= nodes.size()) {
                        return;
                    }
                    ProbeAnswer& answer = output.answers[said.rank];
                    if constexpr (std::is_same_v<Said, step::Started>) {
                        answer.started = true;
                    } else if (!answer.started) {
                        return;
                    } else if constexpr (std::is_same_v<Said, step::Frame>) {
                        answer.output += said.bytes;
                    } else if constexpr (std::is_same_v<Said, step::Failed>) {
                        if (std::optional<job::PreflightFailure> failure =
                                job::parse_failed_check(said.what, nodes[said.rank])) {
                            answer.failure = std::move(failure);
                        }
                    } else if constexpr (std::is_same_v<Said, step::Exited>) {
                        answer.exit_status = said.status;
                    } // a notice (step::Noticed), a rendezvous result or a ready marker
                      // (step::Ready): the probe's tasks read no PyTorch pair, run no
                      // rendezvous check and never wait to be let go
                }
            },
            step::read_task_line(labelled->text));
    }
    return output;
}

} // namespace colossalai::slurm
