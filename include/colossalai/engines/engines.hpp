#pragma once

// The engines: how the nodes' jobs start, one per --launcher value, each in its own module
// (ssh/engine.hpp, slurm/engine.hpp). This module is the one place that lists them: each
// function below dispatches the plan's launch intent with one std::visit, so an intent
// alternative without its engine does not compile.

#include "colossalai/job/launch_transports.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/plan.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::engines {

// The engines' table: one row per --launcher value, each defined in its engine's module.
std::span<const run::EngineRow* const> table();

// The command whose --launcher names an engine: `run` takes every row, `check` those it can reach
// nodes through (EngineRow::check_nodes).
enum class Command { run, check };

// The row named `name` (a --launcher value of `command`); nullptr when no such engine serves it.
const run::EngineRow* find(std::string_view name, Command command = Command::run);

// The engine `options` chose: its --launcher row, else the table's first (the default).
const run::EngineRow& chosen(const run::Options& options);
const run::EngineRow& chosen(const run::CheckOptions& options);

// The --launcher values of `command` in table order, joined by `separator`: "ssh|slurm" (as
// --help shows them), "ssh or slurm" (as a message lists them).
std::string names(std::string_view separator, Command command = Command::run);

// The --launcher values of `command` in table order, each with what its row says of it under
// that command (EngineRow::run_gloss, check_gloss), as --launcher's help lists them: "ssh (local
// children and SSH), slurm (one srun step), or mpirun (...)". Pure.
std::string glossed_names(Command command = Command::run);

// The options of check that `row` owns (those its row offers there, EngineOption::check), as
// --help names them, in the row's order: "--ssh-port", "--ssh-timeout". Pure.
std::vector<std::string_view> check_options(const run::EngineRow& row);

// The checks of `options` that belong to the engines, after run::validate_options (throws the
// usage error): an option that another engine owns, in the chosen engine's words
// (`--srun-args needs --launcher slurm`), then the chosen engine's own checks.
void validate(const run::Options& options);

// The transports that start `plan`'s nodes, made by the engine of `plan.launch`.
std::unique_ptr<job::LaunchTransports> make_transports(const run::Plan& plan,
                                                       job::LaunchHooks hooks);

// Who runs `plan`'s rendezvous check (plan.rendezvous), as the engine of `plan.launch` says.
// Pure.
job::RendezvousWay rendezvous_way(const run::Plan& plan);

// --dry-run: what the engine shows before the nodes (srun's command); empty: nothing. Pure.
std::string dry_run_header(const run::Plan& plan);

// --dry-run: how the engine reaches `node` ("local", "ssh port 2222", "slurm"). Pure.
std::string dry_run_transport(const run::Plan& plan, const job::NodeCommand& node);

} // namespace colossalai::engines
