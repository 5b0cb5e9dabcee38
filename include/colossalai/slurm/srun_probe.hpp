#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// One short program run once on each of the named nodes through a single srun step, its answer
// read per node: what `colossalai check -i --launcher slurm` runs its node probe with. The srun
// is the Slurm transport's (build_srun_command over probe_nodes()): one task per node, each
// task's wrapper names its node and its exit status and frames the program's output, so each
// node's answer is attributed to it by its own start marker, never by srun's task order.
namespace colossalai::slurm {

// The node commands that run `argv` on each of `hosts` (Slurm's node names, in report order):
// rank = position, the same argv on every node (no per-node word), in `working_directory`.
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

// What srun's output said: each node's answer, in the nodes' order, and srun's own lines.
struct ProbeOutput {
    std::vector<ProbeAnswer> answers;
    // srun's lines without a task label (`srun: error: Unable to create step ...`), control
    // bytes escaped, a trailing \r dropped.
    std::vector<std::string> srun_lines;
};

// Reads srun's output, both its streams on one pipe (exec::Stderr::merge), for `nodes`
// (probe_nodes()). A task's lines belong to the node its start marker names; only the frames
// of the program's output (its stderr is its own: the program sends none), the preflight's
// failure and the exit marker count, so that slurmstepd's lines on a task's stderr never mix
// into an answer. Lines of a task that named no node of `nodes` are ignored. Pure.
ProbeOutput read_probe_output(std::string_view srun_output,
                              const std::vector<job::NodeCommand>& nodes);

} // namespace colossalai::slurm
