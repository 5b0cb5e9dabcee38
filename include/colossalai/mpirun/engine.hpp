#pragma once

// The mpirun engine's launch (`--launcher mpirun`): its row, its transport and how its dry run
// shows it.

#include "colossalai/job/launch_transports.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/plan.hpp"

#include <memory>
#include <string>

namespace colossalai::mpirun {

// `--launcher mpirun`: owns --mpirun and --mpirun-args; refuses another engine's option as
// "--ssh-port is for --launcher ssh (mpirun starts the nodes' jobs)", GPU indices in
// --include/--exclude (one command on every node) and an elastic --nnodes MIN:MAX (mpirun ends
// the job when a task ends); needs hosts; no node is local nor names a user. Its launch intent
// (MpirunLaunch) names the program and which MPI it is, from its `--version` (a program that
// cannot run or is neither Open MPI nor Hydra is a one-line error). `check --launcher mpirun`
// reaches the nodes through one mpirun of the same program (node_check.hpp), with --mpirun and
// --mpirun-args as its options there too; it refuses a host with a user part.
const run::EngineRow& engine_row();

// One MpirunTransport for every node of `plan` (mpirun's tasks); its notices go to `hooks`.
std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::MpirunLaunch& launch, job::LaunchHooks hooks);

// Who runs `plan`'s rendezvous check before mpirun's jobs start: the task scripts
// (job::RendezvousWay::transports, before their ready marker), when one is planned.
job::RendezvousWay rendezvous_way(const run::Plan& plan);

// --dry-run: mpirun's command, the lines before the nodes'; the rendezvous check's token, fresh
// for each launch, as the word `TOKEN`. Pure.
std::string dry_run_header(const run::Plan& plan, const run::MpirunLaunch& launch);

// --dry-run: how each node is reached: "mpirun".
std::string dry_run_transport();

} // namespace colossalai::mpirun
