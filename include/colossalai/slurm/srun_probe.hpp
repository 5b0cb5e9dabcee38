#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/step/probe.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// One short program run once on each of the named nodes through a single srun step, its answer
// read per node (step/probe.hpp): what `colossalai check -i --launcher slurm` runs its node probe
// with. The srun is the Slurm transport's (build_srun_command over probe_nodes()): one task per
// node.
namespace colossalai::slurm {

using step::probe_nodes;
using step::ProbeAnswer;

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
