#include "colossalai/engines/engines.hpp"

#include "colossalai/slurm/engine.hpp"
#include "colossalai/ssh/engine.hpp"

#include <variant>

namespace colossalai::engines {

namespace {

// The lambdas of one std::visit, one per launch intent alternative.
template <class... Lambdas>
struct Overloaded : Lambdas... {
    using Lambdas::operator()...;
};

} // namespace

std::unique_ptr<job::LaunchTransports> make_transports(const run::Plan& plan,
                                                       job::LaunchHooks hooks) {
    return std::visit(
        Overloaded{
            [&](const run::SshLaunch& launch) { return ssh::make_transports(plan, launch); },
            [&](const run::SrunLaunch& launch) {
                return slurm::make_transports(plan, launch, std::move(hooks));
            },
        },
        plan.launch);
}

std::string dry_run_header(const run::Plan& plan) {
    return std::visit(
        Overloaded{
            [](const run::SshLaunch&) { return std::string(); },
            [&](const run::SrunLaunch& launch) { return slurm::dry_run_header(plan, launch); },
        },
        plan.launch);
}

std::string dry_run_transport(const run::Plan& plan, const job::NodeCommand& node) {
    return std::visit(
        Overloaded{
            [&](const run::SshLaunch& launch) { return ssh::dry_run_transport(launch, node); },
            [](const run::SrunLaunch&) { return slurm::dry_run_transport(); },
        },
        plan.launch);
}

} // namespace colossalai::engines
