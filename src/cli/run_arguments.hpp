#pragma once

// Private to the cli module: the argv pre-scan of `colossalai run`, driven by its option table.

#include "run_option_table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::cli {

// A launcher option as given on the command line.
struct GivenOption {
    const RunOption* option; // its entry in run_option_table()
    std::string value;       // "" for a flag
};

// The words after `run`, split where option parsing ends: at the script (the first word that is
// not an option or an option's value), after a literal `--` (the next word is the script), or
// at `-m MODULE` / `-mMODULE`. Every later word belongs to the script, whatever it looks like.
struct RunWords {
    // The launcher options, in the order given, whichever of `--name value`, `--name=value`,
    // `-H value`, `-Hvalue`, `-host value` or `-host=value` was used, with '-' and '_' alike in
    // long names. Neither --help nor -m is among them.
    std::vector<GivenOption> options;
    bool help = false;
    std::optional<std::string> module;
    std::optional<std::string> script;
    std::vector<std::string> script_args;
};

// Throws a usage error for an unknown option before the script, an option without its value,
// or a value given to a flag.
RunWords split_run_arguments(const std::vector<std::string>& words);

} // namespace colossalai::cli
