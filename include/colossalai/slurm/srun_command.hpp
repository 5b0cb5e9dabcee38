#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/run/plan.hpp"

#include <string>
#include <vector>

// `--launcher slurm`: the one `srun` that runs every node's job as one task of a Slurm step.
// The Slurm transport builds it from the plan (SlurmTransport); the dry run shows it.
namespace colossalai::slurm {

// The shell script each task runs (`sh -c SCRIPT`): finds its node in the plan by
// SLURMD_NODENAME (a node Slurm gave that is not in the plan fails at once), prints the start
// marker with its node rank, its step (`$SLURM_JOB_ID.$SLURM_STEP_ID`, which the launcher's stop
// sequence signals through scancel) and its node on both streams, runs the preflight (the SSH
// node wrapper's checks, then that perl is there for the relay), and runs that node's command —
// the plan's argv of node 0 with the node-rank word made from the rank, every other word quoted
// as planned — under the relay (step/relay.hpp, the rank its first argument), while it ignores
// the stop signals itself (trapped, so that the job still gets them at their default), then
// prints the exit marker with the job's status on both streams. Every line the task writes
// carries its node rank (step/task_lines.hpp). The per-node words are where the plan's
// NodeCommand::words says (nothing searches the words); throws a runtime error if the nodes' argvs
// differ anywhere else (they never do as planned).
//
// With `allocated` (srun allocates, the plan's hosts are placeholders) the rank is Slurm's node
// id (SLURM_NODEID: the step's node list is sorted, node 0 first), and an implicit master address
// word (node 0's placeholder: NodeWords::implicit_master) becomes the step's first node, taken
// from SLURM_STEP_NODELIST natively (`node[01-04],gpu7` -> `node01`: each bracket's first
// number).
// With `rendezvous`, each task runs its part of the rendezvous check after its preflight
// (job::ProbeStart::together, step::rendezvous_check_shell): the listener's task until every
// other task was answered, the others retrying within the bound, to the script's master address
// (cai_m) when the check's address is the master's.
// With TaskStart::on_go (a launch's step, step::Step's barrier), the task then prints its ready
// marker and waits for the go, SIGUSR1 (SrunEngine's `scancel --signal=USR1` once every task is
// ready); any other signal Slurm delivers before it (the launcher's stop) ends the task without its
// job (step::go_traps_shell, set before the preflight), so that one node's failed check starts no
// job anywhere. TaskStart::at_once (`colossalai check`'s probes) starts it at once.
enum class TaskStart { at_once, on_go };
std::string srun_task_script(const std::vector<job::NodeCommand>& nodes, bool allocated = false,
                             const std::optional<job::RendezvousPlan>& rendezvous = std::nullopt,
                             TaskStart start = TaskStart::at_once);

// The argv of the srun that runs `nodes` (the plan's, in rank order):
//   srun --nodes=N --ntasks=N --ntasks-per-node=1 --nodelist=H1,H2,... --kill-on-bad-exit=0
//        --label [SRUN_ARGS...] /bin/sh -c SCRIPT colossalai-task
// Fail-fast is the launcher's (it stops the step when a task reports a failure): Slurm's own
// --kill-on-bad-exit tears the step's I/O down at once, and the failed task's last lines, its
// exit status among them, were seen lost that way.
// No --unbuffered: the relay's frames are whole lines, which slurmstepd forwards at once and
// srun's labels always keep apart (unbuffered, a partial line of one task could be followed by
// another's).
// With `allocated`, no --nodelist: srun allocates any N nodes (outside an allocation).
std::vector<std::string>
build_srun_command(const std::vector<job::NodeCommand>& nodes,
                   const std::vector<std::string>& srun_args, bool allocated = false,
                   const std::optional<job::RendezvousPlan>& rendezvous = std::nullopt,
                   TaskStart start = TaskStart::at_once);

// The srun of `plan`, whose launch intent is `launch` (TaskStart::on_go).
std::vector<std::string> srun_command(const run::Plan& plan, const run::SrunLaunch& launch);

} // namespace colossalai::slurm
