#pragma once

// Private to the cli module: the options that `colossalai run` and `colossalai check` share,
// each defined once (its spellings, its value's name and default, the one function that parses
// it) for either command's options struct. Each command words the help itself ("every host",
// "every node"), as its --help has always read. An option that one engine owns is that engine's
// under both commands (its row's options, run/engine_row.hpp; with_engine_options places them).

#include "option_table.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace colossalai::cli::shared {

// The engines' command whose options struct is `Options`.
template <class Options>
constexpr engines::Command engines_command =
    std::is_same_v<Options, run::Options> ? engines::Command::run : engines::Command::check;

// --launcher NAME: an engine of the engines' table that serves the command, its row resolved
// once.
template <class Options>
void set_launcher(Options& options, std::string_view name, const std::string& value) {
    constexpr engines::Command command = engines_command<Options>;
    const run::EngineRow* row = engines::find(value, command);
    if (row == nullptr) {
        throw usage_error("{} '{}': expected {}", name, util::escape_for_message(value),
                          engines::names(" or ", command));
    }
    options.engine = row;
}

// --launcher's value as --help shows it: the command's engines, "ssh|slurm" (engines::names),
// made once for the life of the option tables.
template <class Options>
std::string_view launcher_values() {
    static const std::string values = engines::names("|", engines_command<Options>);
    return values;
}

// -H / --host / -host: the spellings both commands accept (the single-dash one too, which
// CLI11 would read as -h for check), each command converting the value its own way (run: the
// hosts; check: the text, which cluster_check reads).
template <class Options>
constexpr OptionEntry<Options> host_option(std::string_view value_name, std::string_view help,
                                           void (*apply)(Options&, std::string_view,
                                                         const std::string&)) {
    return {.short_name = "-H",
            .long_name = "--host",
            .single_dash_alias = "-host",
            .value_name = value_name,
            .help = help,
            .apply = apply};
}

template <class Options>
constexpr OptionEntry<Options> hostfile_option(std::string_view value_name, std::string_view help) {
    return {.long_name = "--hostfile",
            .value_name = value_name,
            .help = help,
            .apply = keep_text<Options, &Options::hostfile>};
}

template <class Options>
constexpr OptionEntry<Options> python_option(std::string_view help) {
    return {.long_name = "--python",
            .value_name = "PATH",
            .help = help,
            .apply = keep_text<Options, &Options::python>};
}

// Its value's name, its default and its help's list of the engines are the engines' table's: its
// names, its first row, each row's gloss (engines::glossed_names) after `lead` ("How the nodes
// are started"). Each command has one --launcher: its help is made once.
template <class Options>
OptionEntry<Options> launcher_option(std::string_view lead) {
    static const std::string help =
        fmt::format("{}: {}", lead, engines::glossed_names(engines_command<Options>));
    return {.long_name = "--launcher",
            .value_name = launcher_values<Options>(),
            .default_shown = engines::table().front()->name,
            .help = help,
            .apply = set_launcher<Options>};
}

} // namespace colossalai::cli::shared
