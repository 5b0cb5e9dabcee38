#pragma once

// Private to the cli module: one pair of functions per subcommand.

#include "run_arguments.hpp"

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/options.hpp"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace colossalai::cli {

// Registers `check` on `app`, without its options (see add_check_options).
CLI::App* add_check_command(CLI::App& app);

// `args` with check's single-dash spellings (`-host node1`, `-host=node1`) written as their long
// names (`--host`), as run's pre-scan reads them: CLI11 would read `-host` as -h (help) and
// letters. Only the words after `check`, and none that is an option's value; `args` as they are
// when the command is not `check`. Pure.
std::vector<std::string> respell_check_aliases(std::vector<std::string> args);

// Registers check's options on `command`; parsed values land in `options`.
void add_check_options(CLI::App& command, run::CheckOptions& options);

// Validates what was parsed for `check` (throws a usage error) and returns the command.
run::CheckOptions finish_check_command(const CLI::App& command, run::CheckOptions options);

// `colossalai run`: the pre-scan parses its words (CLI11 cannot stop at the script and knows
// no single-dash long names); CLI11 only recognises the subcommand and renders --help. Both
// follow run_option_table(), which also converts the values (finish_run_command).
struct RunArguments {
    bool given = false; // the command line runs `colossalai run`
    RunWords words;
    std::string help_only; // the sinks of SCRIPT and ARGS, registered for --help
    std::vector<std::string> help_only_args;
};

// When `args` run `colossalai run`, pre-scans its words into `arguments.words` and returns the
// command line to give CLI11 (up to `run`, plus `--help` if asked for); else returns `args`.
std::vector<std::string> split_run_command_line(const std::vector<std::string>& args,
                                                RunArguments& arguments);

// Registers `run` on `app`, without its options (see add_run_options).
CLI::App* add_run_command(CLI::App& app);

// Registers every option of run_option_table() on `command`, for --help and the generated man
// page and completions only: the pre-scan reads run's words.
void add_run_options(CLI::App& command, RunArguments& arguments);

// Converts and validates the pre-scanned words (throws a usage error).
run::Options finish_run_command(const RunArguments& arguments);

// Plans the job; prints warnings on `err`; with --dry-run prints the plan on `out` and returns
// 0, else launches it and returns the job's exit status.
int execute_run_command(const run::Options& options, std::ostream& out, std::ostream& err);

} // namespace colossalai::cli
