#pragma once

#include "colossalai/check/options.hpp"

#include <ostream>

namespace colossalai::check {

// Runs `colossalai check` with parsed options: gathers the facts, prints the report on `out`
// (warnings on `err`) and returns the exit status (0: no mismatch, 1: a check failed).
int execute(const Options& options, std::ostream& out, std::ostream& err);

} // namespace colossalai::check
