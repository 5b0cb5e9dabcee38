#pragma once

// Private to the cli module: the one type of the option tables of `colossalai run`
// (run_option_table.hpp) and `colossalai check` (check_option_table.hpp), and the options the two
// share (shared_options.hpp). An entry holds everything about one option: its spellings, how
// --help shows it, and the function that converts its value into the command's options struct.

#include <string>
#include <string_view>

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

} // namespace colossalai::cli
