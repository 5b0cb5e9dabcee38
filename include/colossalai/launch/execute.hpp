#pragma once

#include "colossalai/run/options.hpp"
#include "colossalai/run/plan.hpp"

namespace colossalai::launch {

// Runs a validated plan for real: local nodes as child processes, the others over SSH; output
// on this process's stdout/stderr (prefixed `host: ` when there are several nodes); the
// summary block on stderr at the end. Returns the launcher's exit status.
int execute(const run::Plan& plan, const run::Options& options);

} // namespace colossalai::launch
