#pragma once

#include "colossalai/engines/engines.hpp"
#include "colossalai/run/planner.hpp"

#include <string_view>
#include <tuple>

namespace colossalai::test {

// make_plan with the chosen row, as the cli hands it: the planner's tests run each engine's real
// answers (where the hosts come from, locality, the launch intent).
inline run::Plan plan_of(const run::Options& options, const run::Context& context) {
    return run::make_plan(options, context, engines::chosen(options));
}

// The row that --launcher `name` chooses.
inline const run::EngineRow* engine_named(std::string_view name) {
    return engines::find(name);
}

// The values of the options that the engine of `Launch` owns (--ssh-port: SshLaunch).
template <class Launch>
typename Launch::Given& given(run::Options& options) {
    return std::get<typename Launch::Given>(options.engine_options);
}

} // namespace colossalai::test
