#pragma once

// One short program run once on each named node through the family's launcher process (srun,
// mpirun): what `colossalai check -i --launcher slurm|mpirun` runs its node probe with. Each
// task's wrapper names its node and its exit status and frames the program's output
// (task_lines.hpp), so each node's answer is attributed to it by its own start marker, never by
// the launcher's task order.

#include "colossalai/exec/capture.hpp"
#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/step/task_lines.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::step {

// The node commands that run `argv` on each of `hosts` (in report order): rank = position, the
// address its name, the same argv on every node (no per-node word), in `working_directory`.
std::vector<job::NodeCommand> probe_nodes(const std::vector<std::string>& hosts,
                                          const std::vector<std::string>& argv,
                                          const std::string& working_directory);

// What one node's task answered.
struct ProbeAnswer {
    bool started = false;                         // its task printed the start marker
    std::string output;                           // the program's output, its bytes exact
    std::optional<job::PreflightFailure> failure; // the task's preflight failed: nothing ran
    std::optional<int> exit_status;               // the program's status, once it ended
};

// Takes one line of a task's (`said`, read_task_line) into `answers` (one per node of `nodes`,
// probe_nodes()): a node counts from its start marker on, and only the frames of the program's
// output, the preflight's failure and the exit marker count. Lines of a rank that is no node's
// are ignored. Returns false for a line that is no task's (Foreign), which it leaves to the
// caller. Pure.
bool take_probe_line(const TaskLine& said, const std::vector<job::NodeCommand>& nodes,
                     std::vector<ProbeAnswer>& answers);

// One node's reply to the probe: the program's output, and what to say of the node when it holds
// no answer.
struct ProbeReply {
    std::string output;
    std::string error;
};

// Each node's reply, from its answer and how the launcher (`launcher`: "srun", "mpirun"), run
// within `timeout`, ended (`run`), with its last own line (`launcher_lines`, none: nothing): a
// node whose task did not start says so with the launcher's end, a failed preflight is its
// description, and the output comes with the program's status. Pure.
std::vector<ProbeReply> probe_replies(std::vector<ProbeAnswer> answers, std::string_view launcher,
                                      const exec::CaptureResult& run,
                                      std::chrono::milliseconds timeout,
                                      const std::vector<std::string>& launcher_lines);

} // namespace colossalai::step
