#pragma once

#include "colossalai/run/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// `--launcher slurm`: the one `srun` that runs every node's job as one task of a Slurm step.
namespace colossalai::run {

// What the per-task wrapper prints, after srun's `N: ` label, on stdout and on stderr, so that
// the launcher can route each stream and knows each task's end. The first byte (ASCII RS) never
// starts a line of a training job's text output.
inline constexpr std::string_view task_start_marker = "\x1e"
                                                      "colossalai-task-start ";
inline constexpr std::string_view task_exit_marker = "\x1e"
                                                     "colossalai-task-exit ";

// Splits `--srun-args` text into words as a POSIX shell would (blanks separate words; '...'
// keeps everything; "..." keeps everything but \\ \" \$ \`; a backslash outside quotes keeps the
// next character), with no expansion of any kind. Refuses, as usage errors naming the word: an
// unterminated quote and the options that the launcher sets itself (-N/--nodes, -n/--ntasks,
// --ntasks-per-node, -w/--nodelist, -l/--label, -u/--unbuffered, -K/--kill-on-bad-exit,
// -o/--output, -e/--error, -i/--input, --pty).
std::vector<std::string> parse_srun_args(std::string_view text);

// The shell script each task runs (`sh -c SCRIPT`): finds its node in the plan by
// SLURMD_NODENAME (a node Slurm gave that is not in the plan fails at once), prints the start
// marker with its node rank on both streams, runs that node's command — the plan's argv of node
// 0 with the node-rank word made from the rank, every other word quoted as planned — and prints
// the exit marker with its status on both streams. Throws a runtime error if the nodes' argvs
// differ by more than the node-rank word (they never do as planned).
//
// With `allocated` (srun allocates, the plan's hosts are placeholders) the rank is Slurm's node
// id (SLURM_NODEID: the step's node list is sorted, node 0 first), and the master address word
// `--master_addr=<node 0's placeholder>` becomes the step's first node, taken from
// SLURM_STEP_NODELIST natively (`node[01-04],gpu7` -> `node01`: each bracket's first number).
// Either way the start marker carries the rank and the node's name (SLURMD_NODENAME).
std::string srun_task_script(const std::vector<NodeCommand>& nodes, bool allocated = false);

// The argv of the srun that runs `nodes` (the plan's, in rank order):
//   srun --nodes=N --ntasks=N --ntasks-per-node=1 --nodelist=H1,H2,... --kill-on-bad-exit=0
//        --label [SRUN_ARGS...] /bin/sh -c SCRIPT colossalai-task
// Fail-fast is the launcher's (it stops srun when a task reports a failure): Slurm's own
// --kill-on-bad-exit tears the step's I/O down at once, and the failed task's last lines, its
// exit status among them, were seen lost that way.
// No --unbuffered: srun then forwards each task's output in whole lines, which its labels can
// always separate (unbuffered, a partial line of one task could be followed by another's).
// With `allocated`, no --nodelist: srun allocates any N nodes (outside an allocation).
std::vector<std::string> build_srun_command(const std::vector<NodeCommand>& nodes,
                                            const std::vector<std::string>& srun_args,
                                            bool allocated = false);

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

// A task's start marker (`task_start_marker` `RANK NODE`): its node rank and the Slurm name of
// its node (empty when Slurm did not say); nullopt when `text` is not one.
struct TaskStart {
    int rank = 0;
    std::string node; // a copy: the value outlives the line it was read from
};
std::optional<TaskStart> parse_task_start(std::string_view text);

// The number after `marker` in `text` (a whole line, without its newline), or nullopt when the
// line is not that marker.
std::optional<int> parse_marker(std::string_view text, std::string_view marker);

} // namespace colossalai::run
