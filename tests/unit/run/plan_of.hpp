#pragma once

#include "colossalai/engines/engines.hpp"
#include "colossalai/run/planner.hpp"

namespace colossalai::test {

// make_plan with the row of options.launcher, as the cli hands it: the planner's tests run each
// engine's real answers (where the hosts come from, locality, the launch intent).
inline run::Plan plan_of(const run::Options& options, const run::Context& context) {
    return run::make_plan(options, context, engines::row(options.launcher));
}

} // namespace colossalai::test
