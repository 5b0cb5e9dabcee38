#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// `--launcher mpirun`: the one mpirun (Open MPI) or mpiexec (MPICH's Hydra) that runs every
// node's job as one task per node, in the plan's order. Pure: the transport builds it from the
// plan (MpirunTransport), the dry run shows it.
namespace colossalai::mpirun {

// Which MPI a program is, from what its `--version` printed: Open MPI's mpirun says
// `mpirun (Open MPI) 4.1.4` (4.1's mpirun.openmpi `(OpenRTE)`), Hydra's `HYDRA build details:`.
// nullopt: neither (an MPI the engine does not know).
std::optional<run::MpiKind> detect_mpi(std::string_view version_output);

// The variable from which a task of `mpi` learns its rank: OMPI_COMM_WORLD_RANK (Open MPI),
// PMI_RANK (Hydra).
std::string_view rank_variable(run::MpiKind mpi);

// The line of a task's script (for sh) that checks where mpirun placed it: this machine has the
// address `$a` its node was planned with (it can bind to it), else `cai_f "host $a"`.
std::string placement_check_shell();

// --mpirun-args text as words (util::split_shell_words), refusing, as usage errors naming the
// word, the options that mpirun's command sets itself: the process count, the hosts and the
// mapping (-np/-n/-c/--np/--n, -H/--host/-host/-hosts, --hostfile/-hostfile/--machinefile/
// -machinefile/-f, --map-by/-map-by, -ppn/--npernode/-npernode), and output labels
// (--tag-output, -l, -prepend-rank, --output-filename): the tasks' layout and the reading of
// their output are the launcher's.
std::vector<std::string> parse_mpirun_args(std::string_view text);

// The signals the launcher sends mpirun, which forwards them to every task, and what each MPI
// does with them (measured, docs/design.md): Open MPI forwards SIGUSR1 and SIGUSR2 (only to each
// task's wrapper, as the command asks) but aborts the job on SIGTERM; Hydra forwards SIGTERM,
// SIGUSR1 and SIGALRM to each task's process group. Each is a signal of its own, so that two
// sent at once (the go, then a task's failure's stop) are never merged into one.
struct TaskSignals {
    int go = 0;   // every task is ready: the jobs start
    int stop = 0; // the wrapper sends SIGTERM to its job (Hydra: the job gets it itself)
    int kill = 0; // the wrapper sends SIGKILL to its job (Open MPI: the second `stop`); before
                  // the go: the task ends without its job
};
TaskSignals task_signals(run::MpiKind mpi);

// The shell script each task runs (`sh -c SCRIPT`): reads its index from the MPI's rank
// (OMPI_COMM_WORLD_RANK for Open MPI, PMI_RANK for Hydra; another value fails at once), exports
// the node's environment as the plan made it (NodeCommand::environment and flag_environment,
// quoted: no MPI `-x` parsing sees a value; the MPIs' own variables excepted), runs the preflight
// (step/task_script.hpp), checks that this machine has the address its node was planned with (a
// bind to it; else `cai_f 'host ADDRESS'`: mpirun placed the task elsewhere), prints the ready
// marker (step/task_lines.hpp) and waits for task_signals' `go` (its `kill` before it: the task
// ends without starting its job), prints the start marker, turns `stop` and `kill` into SIGTERM and
// SIGKILL to its process group (the wrapper and the relay ignore them), runs node 0's command with
// its own rank under the relay in the background (so that a trap runs at once), waits for it,
// prints the exit marker with the job's status and exits 0: mpirun must not end the other tasks
// when one fails (Open MPI's orte_abort_on_non_zero_status, Hydra's clean-up), the status travels
// in the exit marker. Throws a runtime error if the nodes' argvs differ anywhere but the node rank.
// With `rendezvous`, the task runs its part of the rendezvous check (step::task_rendezvous_shell,
// the token its first argument) after the host check and before the ready marker: a failed check
// is never ready, so no task is let go.
std::string mpirun_task_script(const std::vector<job::NodeCommand>& nodes, run::MpiKind mpi,
                               const std::optional<job::RendezvousPlan>& rendezvous = std::nullopt);

// The argv of the mpirun that runs `nodes` (the plan's, in rank order), one task per node:
//   Open MPI: PROGRAM -np N --host A1,A2,... --map-by ppr:1:node --bind-to none
//             --mca odls_base_signal_direct_children_only 1 [ARGS...] /bin/sh -c SCRIPT
//             colossalai-task
//   Hydra:    PROGRAM -n N -ppn 1 -hosts A1,A2,... [ARGS...] /bin/sh -c SCRIPT colossalai-task
// (A: each node's address), then, with `rendezvous`, its token (the script's `$1`). Open MPI's
// forwarded signals otherwise reach every process of the task's group, the job's too.
std::vector<std::string>
build_mpirun_command(const std::vector<job::NodeCommand>& nodes, const run::MpirunLaunch& launch,
                     const std::optional<job::RendezvousPlan>& rendezvous = std::nullopt);

// The same mpirun, each task running `script` (`sh -c SCRIPT`) instead of mpirun_task_script's:
// check's (node_check.hpp).
std::vector<std::string> mpirun_tasks_command(const std::vector<job::NodeCommand>& nodes,
                                              const run::MpirunLaunch& launch,
                                              const std::string& script);

// The mpirun of `plan`, whose launch intent is `launch`.
std::vector<std::string> mpirun_command(const run::Plan& plan, const run::MpirunLaunch& launch);

} // namespace colossalai::mpirun
