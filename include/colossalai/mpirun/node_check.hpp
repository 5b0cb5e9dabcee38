#pragma once

// `colossalai check --launcher mpirun` (the mpirun row's check_nodes): the node program on every
// node as one task of one mpirun, in the hosts' order (step/probe.hpp: each task names its node,
// frames the program's output and says its status).

#include "colossalai/job/node_command.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/step/probe.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::mpirun {

// The script each task of the check runs (`sh -c SCRIPT`): its index from the MPI's rank
// (rank_variable; another value fails at once), the start marker, the preflight as run's tasks
// have it (the working directory, the program, perl for the relay), the placement check
// (placement_check_shell: mpirun placed the task on its node), then `nodes`' program under the
// relay and the exit marker with its status. The task exits 0 whatever the program did (Open
// MPI's mpirun ends every task when one exits non-zero): its status travels in the exit marker.
// Pure.
std::string check_task_script(const std::vector<job::NodeCommand>& nodes, run::MpiKind mpi);

// What mpirun's output (both its streams on one pipe) said: each node's answer, in the nodes'
// order (probe_nodes()), and mpirun's own lines, those that are no task's, control bytes
// escaped, a trailing \r dropped. Pure.
struct CheckOutput {
    std::vector<step::ProbeAnswer> answers;
    std::vector<std::string> mpirun_lines;
};
CheckOutput read_check_output(std::string_view output, const std::vector<job::NodeCommand>& nodes);

// Runs `request.node_argv` on each host through one mpirun of `launch` (with check's
// --mpirun-args), each node's answer read from its task's lines; a node whose task gave no answer
// replies with what mpirun did. mpirun is stopped (SIGTERM: it ends its tasks) after the probes'
// time plus 30 s for its start, or on Ctrl-C.
std::vector<run::NodeReply> check_nodes(const run::CheckRequest& request,
                                        const run::MpirunLaunch& launch);

} // namespace colossalai::mpirun
