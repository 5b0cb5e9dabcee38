#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/outcome.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/srun_command.hpp"

#include <optional>
#include <string_view>
#include <variant>

// Reading what srun prints with `--label` and what each task's wrapper (run::srun_task_script)
// prints in it: pure, on whole lines (without their newline). The markers' own formats are
// run/srun_command.hpp's and job/preflight.hpp's; this says what a line is to the transport.
namespace colossalai::slurm {

// srun's own line (no task label: `srun: error: ...`), `text` the whole line.
struct SrunMessage {
    std::string_view text;
};
// A task's start marker: srun's task id `task` is node rank `start.rank` on `start.node`.
struct TaskStarted {
    int task = 0;
    run::TaskStart start;
};
// Any other line of task `task`: `text` after the label.
struct TaskText {
    int task = 0;
    std::string_view text;
};
using SrunLine = std::variant<SrunMessage, TaskStarted, TaskText>;

// What one line of srun's output is. The views point into `line`.
SrunLine read_srun_line(std::string_view line);

// A line of a task whose node is known (TaskText::text), as its wrapper wrote it: the job's
// text, the preflight's failure line (its subject taken from the node's `command`), or the exit
// marker with the job's status — after the job's last text on the same line when that text had
// no newline. A marker that does not parse is the job's text.
struct TaskLine {
    std::string_view text; // the job's output on the line, before any exit marker
    std::optional<job::PreflightFailure> failure;
    std::optional<int> exit_status; // the stream ends here, after `text`
};
TaskLine read_task_line(std::string_view text, const job::NodeCommand& command);

// How a task ended, from its wrapper's answers: its failed preflight (its command was not
// started), else its job's exit status as `sh` reports it (above 128: the signal that killed
// the job).
job::Outcome task_outcome(const std::optional<job::PreflightFailure>& failure, int exit_status);

} // namespace colossalai::slurm
