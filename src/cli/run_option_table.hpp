#pragma once

// Private to the cli module: the one list of `colossalai run`'s options. The argv scanner
// (run_arguments.cpp), the CLI11 registrations that render --help (and so the man page and the
// completion table, reference.hpp) and the conversion into run::Options all read it: adding an
// option is adding one entry. The options that one engine owns are its row's (run/engine_row.hpp),
// placed among the others where each says it follows.

#include "option_table.hpp"

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/options.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace colossalai::cli {

using RunOption = OptionEntry<run::Options>;

// Every option of `colossalai run`, in --help order: its own and the engines'
// (with_engine_options over engines::table(), option_table.hpp), made once.
std::span<const RunOption> run_option_table();

// The option spelled `--name` (with '-' and '_' alike after the dashes, as torchrun allows),
// if any.
const RunOption* find_long_option(std::string_view name);

} // namespace colossalai::cli
