#pragma once

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/options.hpp"

#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace colossalai::cli {

// Parsing already answered (help, version): nothing more to run.
struct Done {
    int exit_code = 0;
};

using Command = std::variant<Done, run::CheckOptions, run::Options>;

// Parses the whole command line (args[0] is the program name). Help and version text go to
// `out`. Throws colossalai::Error (usage) for a bad command line.
Command parse(const std::vector<std::string>& args, std::ostream& out);

// Runs a parsed command and returns the process exit status.
int execute(const Command& command, std::ostream& out, std::ostream& err);

// parse() then execute(), with every colossalai::Error turned into its message and exit status.
int main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace colossalai::cli
