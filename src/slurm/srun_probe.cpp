#include "colossalai/slurm/srun_probe.hpp"

#include "task_lines.hpp"

#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/strings.hpp"

namespace colossalai::slurm {

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
        // Each line of a task's says its node's rank; a task's line that is no marker nor
        // frame of its (slurmstepd's on its stderr) is ignored.
        step::take_probe_line(step::read_task_line(labelled->text), nodes, output.answers);
    }
    return output;
}

} // namespace colossalai::slurm
