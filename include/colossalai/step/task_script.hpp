#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/step/relay.hpp"

#include <string>
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

} // namespace colossalai::step
