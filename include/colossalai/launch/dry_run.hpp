#pragma once

#include "colossalai/run/plan.hpp"

#include <iosfwd>
#include <string>

namespace colossalai::launch {

// The text `colossalai run --dry-run` prints: a summary line, then per node a header line and
// its command, indented by four spaces and quoted for a POSIX shell (shell_join), so that it can
// be pasted and run as is:
//
//   dry run: 2 nodes, PyTorch 2.1.0
//   [node 0] host1 (local) cwd=/work/job
//       torchrun --nproc_per_node=8 --nnodes=2 --node_rank=0 ... train.py --lr 0.1
//   [node 1] alice@host2 (ssh port 2222) cwd=/work/job
//       torchrun ...
//
// The summary says `PyTorch not found (assuming >= 2.0)` when no version was found; `(ssh)` has
// no port when --ssh-port was not given; the working directory is shell-quoted too. Each node's
// transport is the plan's launch intent's: with --launcher slurm the srun command the Slurm
// transport runs comes first (every node reads `(slurm)`). Under each command, what the
// environment flags set or drop there, and, for a node reached over SSH inside an allocation,
// the launcher's Slurm variables it does not get (NodeCommand::withheld_environment).
std::string render_dry_run(const run::Plan& plan);

// render_dry_run's text written to `out` as it is made, a node at a time (the text for 100,000
// nodes is some 16 MB).
void write_dry_run(const run::Plan& plan, std::ostream& out);

} // namespace colossalai::launch
