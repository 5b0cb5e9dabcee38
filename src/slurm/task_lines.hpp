#pragma once

#include <optional>
#include <string>
#include <string_view>

// Private to the slurm module: what srun adds to the tasks' lines (step/task_lines.hpp says what
// the lines themselves carry). Pure, on whole lines (without their newline).
namespace colossalai::slurm {

// One line of srun's labelled output: `[blanks]TASK: text`. nullopt for a line without a label
// (srun's own messages). The label only attributes a line that is not the task's own (one of
// slurmstepd's on its stderr: its frames and markers carry their node's rank).
struct LabelledLine {
    int task = 0;
    std::string_view text;
};
std::optional<LabelledLine> parse_labelled_line(std::string_view line);

// srun's own line (one without a task label: `srun: error: node2: task 1: Exited with exit code
// 3`, `srun: Job step aborted: ...`, `srun: job 7 queued and waiting for resources`) as the
// launcher's notice line: `colossalai: srun: ...` (a line that does not name srun gets the
// `srun: ` too, so every line of srun's reads as srun's and none as a node's), control bytes
// escaped as util::escape_control_bytes does (srun relays text from the nodes: it cannot move
// the cursor or forge a line), a trailing \r dropped, and a newline at the end.
std::string srun_notice(std::string_view line);

// Slurm's step as a task's start marker names it (its handle, `$SLURM_JOB_ID.$SLURM_STEP_ID`):
// `7.0`, or empty when it is not two numbers, which then cannot be signalled through scancel.
std::string slurm_step(std::string_view handle);

} // namespace colossalai::slurm
