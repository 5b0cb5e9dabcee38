#pragma once

#include "colossalai/run/plan.hpp"

namespace colossalai::launch {

// Runs a validated plan for real, from the plan alone (its nodes, environment, timings and SSH
// policy; neither the options nor the launcher's environment are read again): local nodes as
// child processes, the others over SSH, or all through srun; output on this process's
// stdout/stderr (prefixed `host: ` when there are several nodes); the summary block on stderr
// at the end. Returns the launcher's exit status.
int execute(const run::Plan& plan);

} // namespace colossalai::launch
