#pragma once

// Private to the cli module: one pair of functions per subcommand.

#include "colossalai/check/options.hpp"

#include <CLI/CLI.hpp>

namespace colossalai::cli {

// Registers `check` on `app`; parsed values land in `options`.
CLI::App* add_check_command(CLI::App& app, check::Options& options);

// Validates what was parsed for `check` (throws a usage error) and returns the command.
check::Options finish_check_command(const CLI::App& command, check::Options options);

} // namespace colossalai::cli
