#pragma once

#include "colossalai/run/plan.hpp"
#include "colossalai/step/step.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

// `--launcher slurm`: every node's job is one task of a single srun step.
namespace colossalai::slurm {

// How the Slurm transport starts its local programs, srun and scancel: as a local job
// (job::start_local_job: own process group, a guardian, PR_SET_PDEATHSIG) by default; a unit
// test's fake otherwise.
using Spawn = step::Spawn;

// One more transport of the launch seam, a member of the step family (step/step.hpp): srun is
// the launcher process, and this module supplies its command (srun_command.hpp), the reading of
// its `--label` and its own lines, and the stop delivery through scancel. The nodes' processes
// share that one srun, which the first go() starts once every node is ready. srun's output is split
// by node: every line a task writes carries its node rank (step/task_lines.hpp): its wrapper names
// its step first and its exit status last, and passes the job's output through the relay
// (step/relay.hpp), so each node's NodeOutput gets the job's exact bytes and each node its own
// result. srun's own lines (those without its task label) go to `notice`.
//
// The stop sequence (Process::stop, kill, abandon), for the whole step at once:
// - stop(N) once a task has named the step: `scancel --signal=N JOB.STEP` (a child the loop
//   polls), which Slurm delivers to every process of every task; the jobs' handlers run, and
//   each task reports its job's status as it ends. Before any task started (srun waits for
//   resources, queued or in an allocation): SIGTERM to srun, which cancels its request; the
//   tasks are `not_started`, and nothing starts later.
// - kill(): `scancel --signal=KILL JOB.STEP`; before the step: SIGTERM to srun, as for a stop.
// - abandon(): SIGKILL to srun; Slurm then ends the step on every node.
// A scancel that fails (not found, refused) is said in a notice, and srun gets the signal
// instead: SIGTERM makes srun end the step with SIGKILL (no handler runs), SIGKILL ends srun.
// A stop whose scancel finds the step gone (`Invalid job id specified`: it ended meanwhile)
// leaves srun to end by itself; a kill's does not.
// A task without an exit status when srun ends was stopped, or failed with srun's status.
class SlurmTransport : public step::StepTransport {
public:
    // `plan`'s nodes run as tasks of one srun (`launch` says how), in `plan`'s working
    // directory, with the launcher's environment as the plan read it (srun passes it to every
    // task: the variables of -x, --env-file and --network-interface go into it, those of
    // --env-exclude stay out). With `launch.allocates` (the plan's hosts are placeholders), each
    // node's name comes from its task's start marker: its output's prefix becomes `name: ` and
    // its process's host() (job::Process) says it. scancel is found on srun's PATH.
    SlurmTransport(const run::Plan& plan, const run::SrunLaunch& launch,
                   std::function<void(std::string_view)> notice, Spawn spawn = {});
};

} // namespace colossalai::slurm
