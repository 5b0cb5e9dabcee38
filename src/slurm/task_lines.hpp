#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/outcome.hpp"
#include "colossalai/job/preflight.hpp"

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

// Private to the slurm module: the protocol between each task's wrapper (srun_task_script) and
// the launcher, and the reading of srun's `--label`ed lines. Pure, on whole lines (without their
// newline).
namespace colossalai::slurm {

// What the per-task wrapper prints, after srun's `N: ` label, on stdout and on stderr, so that
// the launcher can route each stream and knows each task's end. The first byte (ASCII RS) never
// starts a line of the job's output: the relay doubles every RS of the job's (relay.hpp).
//   start: `RANK JOB.STEP NODE` (the plan's node rank, Slurm's step, SLURMD_NODENAME)
//   exit:  `STATUS` (the job's status as sh reports it)
inline constexpr std::string_view task_start_marker = "\x1e"
                                                      "colossalai-task-start ";
inline constexpr std::string_view task_exit_marker = "\x1e"
                                                     "colossalai-task-exit ";

// One line of srun's labelled output: `[blanks]TASK: text`. nullopt for a line without a label
// (srun's own messages).
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

// A task's start marker (`task_start_marker` `RANK JOB.STEP NODE`): its node rank, Slurm's step
// (`7.0`; empty when it is not two numbers, which then cannot be signalled through scancel) and
// the Slurm name of its node (empty when Slurm did not say); nullopt when `text` is not one.
struct TaskStart {
    int rank = 0;
    std::string step; // copies: the value outlives the line it was read from
    std::string node;
};
std::optional<TaskStart> parse_task_start(std::string_view text);

// The number after `marker` in `text` (a whole line, without its newline), or nullopt when the
// line is not that marker.
std::optional<int> parse_marker(std::string_view text, std::string_view marker);

// srun's own line (no task label: `srun: error: ...`), `text` the whole line.
struct SrunMessage {
    std::string_view text;
};
// A task's start marker: srun's task id `task` is node rank `start.rank` on `start.node`.
struct TaskStarted {
    int task = 0;
    TaskStart start;
};
// Any other line of task `task`: `text` after the label.
struct TaskText {
    int task = 0;
    std::string_view text;
};
using SrunLine = std::variant<SrunMessage, TaskStarted, TaskText>;

// What one line of srun's output is. The views point into `line`.
SrunLine read_srun_line(std::string_view line);

// A line of a task whose node is known (TaskText::text), as its wrapper wrote it: a frame of the
// job's output (its bytes decoded, relay.hpp), the preflight's failure line (its subject taken
// from the node's `command`), or the exit marker with the job's status. Any other line (one of
// slurmstepd's, on the task's stderr) is passed on whole, with its newline.
struct TaskLine {
    std::string bytes; // what the node's output gets
    std::optional<job::PreflightFailure> failure;
    std::optional<int> exit_status; // the stream ends here
};
TaskLine read_task_line(std::string_view text, const job::NodeCommand& command);

// How a task ended, from its wrapper's answers: its failed preflight (its command was not
// started), else its job's status as sh reports it. sh reports a job killed by signal N and one
// that exited with 128+N alike: 128+N is `killed` only when the launcher delivered N to the step
// (`delivered`), as the SSH transport reads its wrapper's status, else the job's own exit code.
job::Outcome task_outcome(const std::optional<job::PreflightFailure>& failure, int exit_status,
                          const std::set<int>& delivered);

} // namespace colossalai::slurm
