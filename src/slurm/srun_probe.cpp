#include "colossalai/slurm/srun_probe.hpp"

#include "relay.hpp"
#include "task_lines.hpp"

#include "colossalai/util/strings.hpp"

#include <map>
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
    std::map<int, std::size_t> node_of_task; // srun's task id -> index in `nodes`
    std::size_t begin = 0;
    while (begin < srun_output.size()) {
        // Whole lines, their \r kept (a frame's bytes are the program's); a last line without a
        // newline is read too.
        std::size_t end = srun_output.find('\n', begin);
        if (end == std::string_view::npos) {
            end = srun_output.size();
        }
        SrunLine line = read_srun_line(srun_output.substr(begin, end - begin));
        begin = end + 1;
        if (const auto* message = std::get_if<SrunMessage>(&line)) {
            std::string_view text = message->text;
            if (!text.empty() && text.back() == '\r') {
                text.remove_suffix(1);
            }
            if (!util::trim(text).empty()) {
                output.srun_lines.push_back(util::escape_control_bytes(text));
            }
        } else if (const auto* started = std::get_if<TaskStarted>(&line)) {
            // Each task names its node on both streams: the second time changes nothing.
            if (started->start.rank >= 0 &&
                static_cast<std::size_t>(started->start.rank) < nodes.size()) {
                auto index = static_cast<std::size_t>(started->start.rank);
                node_of_task[started->task] = index;
                output.answers[index].started = true;
            }
        } else if (const auto* text = std::get_if<TaskText>(&line)) {
            auto found = node_of_task.find(text->task);
            if (found == node_of_task.end()) {
                continue;
            }
            ProbeAnswer& answer = output.answers[found->second];
            if (std::optional<std::string> bytes = decode_frame(text->text)) {
                answer.output += *bytes;
                continue;
            }
            TaskLine read = read_task_line(text->text, nodes[found->second]);
            if (read.failure) {
                answer.failure = std::move(read.failure);
            }
            if (read.exit_status) {
                answer.exit_status = read.exit_status;
            }
        }
    }
    return output;
}

} // namespace colossalai::slurm
