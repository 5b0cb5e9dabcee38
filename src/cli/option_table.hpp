#pragma once

// Private to the cli module: the one type of the option tables of `colossalai run`
// (run_option_table.hpp) and `colossalai check` (check_option_table.hpp), and the options the two
// share (shared_options.hpp). An entry holds everything about one option: its spellings, how
// --help shows it, and the function that converts its value into the command's options struct.
// The engines' own options come from their rows (with_engine_options), for either command.

#include "colossalai/run/engine_row.hpp"

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace colossalai::cli {

// What a command does with an option besides recording it.
enum class OptionRole {
    option, // recorded; its `apply` converts the value into the options struct
    help,   // asks for --help
    module, // -m MODULE (run only): the value is the module, and option parsing ends
};

// One option of a command whose parsed options are an `Options`.
template <class Options>
struct OptionEntry {
    // "-H"; empty if none. One that takes a value may have it attached: -Hx.
    std::string_view short_name = {};
    // "--host"; empty if none.
    std::string_view long_name = {};
    // A single-dash long spelling also accepted, as `-host VALUE` or `-host=VALUE` (run's
    // pre-scan reads it; check's words have it respelled as the long name before CLI11, which
    // would read -h, sees them: respell_check_aliases); not shown as a name in --help (its help
    // text may mention it).
    std::string_view single_dash_alias = {};
    // The value's name as --help shows it ("HOSTS"); empty: a flag, which takes no value.
    std::string_view value_name = {};
    // The default --help shows; empty: none shown.
    std::string_view default_shown = {};
    std::string_view help = {};
    OptionRole role = OptionRole::option;
    // Converts `value` (empty for a flag) into `options`; throws a usage error for a bad value.
    // `name` is the option as --help names it (display_name), for the message.
    void (*apply)(Options& options, std::string_view name, const std::string& value) = nullptr;
    // An engine's option: its declaration in the engine's row (run/engine_row.hpp), whose
    // function reads the value into the options' engine part (`Options::engine_options`) for
    // either command; `apply` is then unset. nullptr: an option of the command's own.
    const run::EngineOption* engine_option = nullptr;

    // Converts `value` (empty for a flag) into `options`, by `apply` or the engine's function;
    // throws a usage error for a bad value.
    void convert(Options& options, const std::string& value) const {
        if (engine_option != nullptr) {
            engine_option->apply(options.engine_options, display_name(), value);
        } else {
            apply(options, display_name(), value);
        }
    }

    bool takes_value() const { return !value_name.empty(); }

    // The name that messages use: the long name, else the short one.
    std::string_view display_name() const { return long_name.empty() ? short_name : long_name; }

    // The names as CLI11 takes them: "-H,--host".
    std::string cli11_names() const {
        std::string names(short_name);
        if (!long_name.empty()) {
            names += (names.empty() ? "" : ",") + std::string(long_name);
        }
        return names;
    }
};

// An option whose text is kept as given (checked later, with the other options): `field` is
// the Options member it lands in.
template <class Options, auto field>
void keep_text(Options& options, std::string_view, const std::string& value) {
    options.*field = value;
}

// A flag: `field` is the Options member it sets.
template <class Options, auto field>
void set_flag(Options& options, std::string_view, const std::string&) {
    options.*field = true;
}

// Every table begins with this, as CLI11 lists its own help flag first.
template <class Options>
constexpr OptionEntry<Options> help_option() {
    return {.short_name = "-h",
            .long_name = "--help",
            .help = "Print this help message and exit",
            .role = OptionRole::help};
}

// An engine's option as an entry of a command's table, as that command shows it (`shown`).
template <class Options>
OptionEntry<Options> entry_of(const run::EngineOption& option,
                              const run::EngineOptionShown& shown) {
    return {.long_name = option.name,
            .value_name = shown.value_name,
            .default_shown = shown.default_shown,
            .help = shown.help,
            .engine_option = &option};
}

// The command whose options are `Options` (run::Options, run::CheckOptions): how it shows an
// engine's option.
template <class Options>
constexpr run::EngineOptionShown run::EngineOption::*shown_in =
    std::is_same_v<Options, run::Options> ? &run::EngineOption::run : &run::EngineOption::check;

namespace detail {

// Places `option` and, after it, every option of `pending` that follows it (and so on).
template <class Options>
void place(std::vector<OptionEntry<Options>>& table, const OptionEntry<Options>& option,
           std::vector<const run::EngineOption*>& pending) {
    table.push_back(option);
    for (auto it = pending.begin(); it != pending.end();) {
        const run::EngineOptionShown& shown = (*it)->*shown_in<Options>;
        if (shown.follows == option.long_name) {
            const run::EngineOption& next = **it;
            pending.erase(it);
            place(table, entry_of<Options>(next, shown), pending);
            it = pending.begin(); // `pending` changed below us
        } else {
            ++it;
        }
    }
}

} // namespace detail

// `general` with the options of `engines` that the command of `Options` offers placed among them:
// each right after the option it follows there (EngineOptionShown::follows), those that follow
// the same option in the engines' order. Throws std::logic_error for an engine's option that
// follows none. Pure.
template <class Options>
std::vector<OptionEntry<Options>>
with_engine_options(std::span<const OptionEntry<Options>> general,
                    std::span<const run::EngineRow* const> engines) {
    std::vector<const run::EngineOption*> pending;
    for (const run::EngineRow* engine : engines) {
        for (const run::EngineOption& option : engine->options) {
            if ((option.*shown_in<Options>).offered()) {
                pending.push_back(&option);
            }
        }
    }
    std::vector<OptionEntry<Options>> table;
    for (const OptionEntry<Options>& option : general) {
        detail::place(table, option, pending);
    }
    if (!pending.empty()) {
        throw std::logic_error(std::string(pending.front()->name) +
                               " follows no option of its command");
    }
    return table;
}

} // namespace colossalai::cli
