#pragma once

// The slurm engine's launch (`--launcher slurm`): its transport and how its dry run shows it.

#include "colossalai/job/launch_transports.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/plan.hpp"

#include <memory>
#include <string>

namespace colossalai::slurm {

// `--launcher slurm`: owns --srun-args; refuses another engine's option as "--ssh-port is for
// --launcher ssh (srun starts the nodes' jobs)", and GPU indices in --include/--exclude (srun
// starts one command on every node). Outside an allocation --num_nodes N alone lets srun
// allocate the nodes, without it hosts are needed; no node is local nor names a user; its launch
// intent (SrunLaunch) carries --srun-args' words and whether srun allocates.
const run::EngineRow& engine_row();

// One SlurmTransport for every node of `plan` (srun's tasks); its notices and the names of
// the nodes srun allocates go to `hooks`.
std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::SrunLaunch& launch, job::LaunchHooks hooks);

// Who runs `plan`'s rendezvous check: the tasks' scripts, whenever one is planned. Pure.
job::RendezvousWay rendezvous_way(const run::Plan& plan);

// --dry-run: srun's command, the lines before the nodes'. Pure.
std::string dry_run_header(const run::Plan& plan, const run::SrunLaunch& launch);

// --dry-run: how each node is reached: "slurm".
std::string dry_run_transport();

} // namespace colossalai::slurm
