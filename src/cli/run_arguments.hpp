#pragma once

// Private to the cli module: the argv pre-scan of `colossalai run`.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::cli {

// The words after `run`, split where option parsing ends: at the script (the first word that is
// not an option or an option's value), after a literal `--` (the next word is the script), or
// at `-m MODULE` / `-mMODULE`. Every later word belongs to the script, whatever it looks like.
struct RunWords {
    // The launcher options that take a value, in the order given, named as in --help
    // (`--host`), whichever of `--name value`, `--name=value`, `-H value`, `-Hvalue`,
    // `-host value` or `-host=value` was used, with '-' and '_' alike in long names; `-x`
    // (`-x NAME=VALUE`, `-xNAME=VALUE`) keeps its short name.
    std::vector<std::pair<std::string, std::string>> values;
    bool dry_run = false;
    bool help = false;
    std::optional<std::string> module;
    std::optional<std::string> script;
    std::vector<std::string> script_args;
};

// Throws a usage error for an unknown option before the script, an option without its value,
// or a value given to a flag.
RunWords split_run_arguments(const std::vector<std::string>& words);

} // namespace colossalai::cli
