#pragma once

// Private to the cli module: the one list of `colossalai check`'s options, of the same type as
// run's (option_table.hpp). The CLI11 registrations that parse them and render --help (and so
// the man page and the completion table, reference.hpp) read it: adding an option is adding one
// entry.

#include "option_table.hpp"

#include "colossalai/run/engine_row.hpp"

#include <span>
#include <vector>

namespace colossalai::cli {

using CheckOption = OptionEntry<run::CheckOptions>;

// Every option of `colossalai check`, in --help order: its own and the engines' options of check
// (with_engine_options over engines::table(), option_table.hpp), made once. Their values name
// CLI11's types (TEXT, INT) where check's --help always has.
std::span<const CheckOption> check_option_table();

} // namespace colossalai::cli
