#include "colossalai/engines/engines.hpp"

#include "colossalai/mpirun/engine.hpp"
#include "colossalai/slurm/engine.hpp"
#include "colossalai/ssh/engine.hpp"
#include "colossalai/util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>
#include <vector>

namespace colossalai::engines {

namespace {

// The lambdas of one std::visit, one per launch intent alternative.
template <class... Lambdas>
struct Overloaded : Lambdas... {
    using Lambdas::operator()...;
};
// (C++20 deduces it without the guide; clang 14, which builds the sanitizer targets, does not.)
template <class... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

} // namespace

std::span<const run::EngineRow* const> table() {
    // The one list of the engines: a new engine is a row here.
    static const run::EngineRow* const rows[] = {&ssh::engine_row(), &slurm::engine_row(),
                                                 &mpirun::engine_row()};
    return rows;
}

const run::EngineRow* find(std::string_view name) {
    auto it =
        std::ranges::find_if(table(), [&](const run::EngineRow* row) { return row->name == name; });
    return it == table().end() ? nullptr : *it;
}

const run::EngineRow& row(run::Launcher launcher) {
    auto it = std::ranges::find_if(
        table(), [&](const run::EngineRow* row) { return row->launcher == launcher; });
    if (it == table().end()) {
        throw fatal_error("no engine for this launcher");
    }
    return **it;
}

std::string names(std::string_view separator) {
    std::vector<std::string_view> all;
    for (const run::EngineRow* row : table()) {
        all.push_back(row->name);
    }
    return fmt::format("{}", fmt::join(all, separator));
}

void validate(const run::Options& options) {
    const run::EngineRow& chosen = row(options.launcher);
    for (const run::EngineRow* owner : table()) {
        if (owner == &chosen) {
            continue;
        }
        for (const run::OwnedOption& option : owner->options) {
            if (option.given(options)) {
                throw usage_error("{}", chosen.refuse(option.name, owner->name));
            }
        }
    }
    if (chosen.validate != nullptr) {
        chosen.validate(options);
    }
}

std::unique_ptr<job::LaunchTransports> make_transports(const run::Plan& plan,
                                                       job::LaunchHooks hooks) {
    return std::visit(
        Overloaded{
            [&](const run::SshLaunch& launch) { return ssh::make_transports(plan, launch); },
            [&](const run::SrunLaunch& launch) {
                return slurm::make_transports(plan, launch, std::move(hooks));
            },
            [&](const run::MpirunLaunch& launch) {
                return mpirun::make_transports(plan, launch, std::move(hooks));
            },
        },
        plan.launch);
}

std::string dry_run_header(const run::Plan& plan) {
    return std::visit(
        Overloaded{
            [](const run::SshLaunch&) { return std::string(); },
            [&](const run::SrunLaunch& launch) { return slurm::dry_run_header(plan, launch); },
            [&](const run::MpirunLaunch& launch) { return mpirun::dry_run_header(plan, launch); },
        },
        plan.launch);
}

std::string dry_run_transport(const run::Plan& plan, const job::NodeCommand& node) {
    return std::visit(
        Overloaded{
            [&](const run::SshLaunch& launch) { return ssh::dry_run_transport(launch, node); },
            [](const run::SrunLaunch&) { return slurm::dry_run_transport(); },
            [](const run::MpirunLaunch&) { return mpirun::dry_run_transport(); },
        },
        plan.launch);
}

} // namespace colossalai::engines
