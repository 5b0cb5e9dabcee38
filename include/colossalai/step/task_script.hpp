#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/step/relay.hpp"

#include <string>
#include <string_view>
#include <vector>

// The parts of a task's wrapper script (`sh -c SCRIPT`) that every engine of the step family
// writes alike (slurm's srun_task_script, mpirun's mpirun_task_script): every task runs node 0's
// command with its own node rank, after the SSH node wrapper's preflight, under the relay
// (relay.hpp). The shell variables they read: `r` (the node rank), `m` (the master address, when
// the engine's script sets it) and the function `cai_f` (task_lines.hpp: failed_check_shell).
namespace colossalai::step {

// Throws a runtime error if the nodes' argvs differ anywhere but the node-rank word that the
// planner's NodeCommand::words points at (they never do as planned): every task runs node 0's.
void check_same_commands(const std::vector<job::NodeCommand>& nodes);

// The preflight lines, for sh: node 0's working directory, command, interfaces, GPU need and
// script (every task's: the nodes run one command), the master address `$m` when
// `master_from_shell` else node 0's planned one, the checks of job::preflight_shell; once they
// pass, the notice of a PyTorch and Python pair in `broken` (run::broken_pair(): the function
// `cai_note`, task_lines.hpp's notice_shell, never a failure); then that perl is there for the
// relay (`cai_f 'helper perl'`).
std::string task_preflight_shell(const job::NodeCommand& first, bool master_from_shell,
                                 const job::BrokenPair& broken);

// The relay's command, without a newline: `perl -e RELAY "$r" CHANNEL WORDS...` (`channel`: where
// it writes its frames, relay.hpp), node 0's argv with
// `"--node_rank=$r"` at its node-rank word and, when `master_from_shell`, `"--master_addr=$m"` at
// its implicit master word; every other word quoted as planned.
std::string task_relay_shell(const job::NodeCommand& first, bool master_from_shell,
                             RelayChannel channel);

// The barrier of the tasks (Step: Engine::release once every task is ready): the traps, set before
// the preflight, of the signals `cancel` (the launcher's stop before the go: `cai_x`, so that a
// check the stop killed is no failed check and the job never starts) and `go` (`cai_g`), as
// `trap` spells them (`USR2 TERM`, `USR1`), each ending the wait's sleep (`cai_k`) with SIGKILL:
// a signal that comes as the sleep is forked reaches it while it still has the wrapper's traps,
// and a trapped one would be lost there, the sleep left holding the task's output open.
std::string go_traps_shell(std::string_view cancel, std::string_view go);
// Once the task's checks passed: its ready marker (unless stopped), then the wait until
// go_traps_shell's `go` or `cancel`; after it, `cai_x` set means stopped, the job not started.
std::string wait_for_go_shell(std::string_view rank);

// The task's part of the rendezvous check `check` (job::ProbeStart::together: the tasks start
// their probes at once), after its preflight: the program in `cai_y`, then
// rendezvous_check_shell of the listener's probe on its rank (until every other task was answered,
// within twice the bound) and everyone else's connection (retrying within the bound), to the
// script's master address (`"$cai_m"`) when the check's address is `master` (node 0's planned
// one). `token`: the shell word of the launch's token, the same in every task and fresh for
// each launch (srun: the step's id; mpirun: the script's first argument).
std::string task_rendezvous_shell(const job::RendezvousPlan& check, const std::string& master,
                                  std::string_view token);

} // namespace colossalai::step
