#pragma once

// The engines: how the nodes' jobs start, one per --launcher value, each in its own module
// (ssh/engine.hpp, slurm/engine.hpp). This module is the one place that lists them: each
// function below dispatches the plan's launch intent with one std::visit, so an intent
// alternative without its engine does not compile.

#include "colossalai/job/launch_transports.hpp"
#include "colossalai/run/plan.hpp"

#include <memory>
#include <string>

namespace colossalai::engines {

// The transports that start `plan`'s nodes, made by the engine of `plan.launch`.
std::unique_ptr<job::LaunchTransports> make_transports(const run::Plan& plan,
                                                       job::LaunchHooks hooks);

// --dry-run: what the engine shows before the nodes (srun's command); empty: nothing. Pure.
std::string dry_run_header(const run::Plan& plan);

// --dry-run: how the engine reaches `node` ("local", "ssh port 2222", "slurm"). Pure.
std::string dry_run_transport(const run::Plan& plan, const job::NodeCommand& node);

} // namespace colossalai::engines
