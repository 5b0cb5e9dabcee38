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

namespace {

bool serves(const run::EngineRow& row, Command command) {
    return command == Command::run || row.check_nodes != nullptr;
}

} // namespace

const run::EngineRow* find(std::string_view name, Command command) {
    auto it = std::ranges::find_if(table(), [&](const run::EngineRow* row) {
        return row->name == name && serves(*row, command);
    });
    return it == table().end() ? nullptr : *it;
}

namespace {

const run::EngineRow& given_or_first(const run::EngineRow* given) {
    return given != nullptr ? *given : *table().front();
}

} // namespace

const run::EngineRow& chosen(const run::Options& options) {
    return given_or_first(options.engine);
}

const run::EngineRow& chosen(const run::CheckOptions& options) {
    return given_or_first(options.engine);
}

std::string names(std::string_view separator, Command command) {
    std::vector<std::string_view> all;
    for (const run::EngineRow* row : table()) {
        if (serves(*row, command)) {
            all.push_back(row->name);
        }
    }
    return fmt::format("{}", fmt::join(all, separator));
}

std::vector<std::string_view> check_options(const run::EngineRow& row) {
    std::vector<std::string_view> names;
    for (const run::EngineOption& option : row.options) {
        if (option.check.offered()) {
            names.push_back(option.name);
        }
    }
    return names;
}

std::string glossed_names(Command command) {
    std::vector<std::string> all;
    for (const run::EngineRow* row : table()) {
        if (serves(*row, command)) {
            std::string_view gloss = command == Command::run ? row->run_gloss : row->check_gloss;
            all.push_back(gloss.empty() ? std::string(row->name)
                                        : fmt::format("{} ({})", row->name, gloss));
        }
    }
    if (all.size() > 1) {
        all.back() = "or " + all.back();
    }
    return fmt::format("{}", fmt::join(all, ", "));
}

void validate(const run::Options& options) {
    const run::EngineRow& engine = chosen(options);
    for (const run::EngineRow* owner : table()) {
        if (owner == &engine) {
            continue;
        }
        for (const run::EngineOption& option : owner->options) {
            if (option.given(options.engine_options)) {
                throw usage_error("{}", engine.refuse(option.name, owner->name));
            }
        }
    }
    if (engine.validate != nullptr) {
        engine.validate(options);
    }
}

std::unique_ptr<job::LaunchTransports> make_transports(const run::Plan& plan,
                                                       job::LaunchHooks hooks) {
    return std::visit(Overloaded{
                          [&](const run::SshLaunch& launch) {
                              return ssh::make_transports(plan, launch, std::move(hooks));
                          },
                          [&](const run::SrunLaunch& launch) {
                              return slurm::make_transports(plan, launch, std::move(hooks));
                          },
                          [&](const run::MpirunLaunch& launch) {
                              return mpirun::make_transports(plan, launch, std::move(hooks));
                          },
                      },
                      plan.launch);
}

job::RendezvousWay rendezvous_way(const run::Plan& plan) {
    return std::visit(Overloaded{
                          [&](const run::SshLaunch&) { return ssh::rendezvous_way(plan); },
                          [&](const run::SrunLaunch&) { return slurm::rendezvous_way(plan); },
                          [&](const run::MpirunLaunch&) { return mpirun::rendezvous_way(plan); },
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
