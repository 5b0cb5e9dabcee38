#pragma once

// Private to the cli module: the one list of `colossalai run`'s options. The argv scanner
// (run_arguments.cpp), the CLI11 registrations that render --help (and so the man page and the
// completion table, reference.hpp) and the conversion into run::Options all read it: adding an
// option is adding one entry.

#include "colossalai/run/options.hpp"

#include <span>
#include <string>
#include <string_view>

namespace colossalai::cli {

// What the scanner does with an option besides recording it.
enum class RunOptionRole {
    option, // recorded; its `apply` converts the value into run::Options
    help,   // asks for --help
    module, // -m MODULE: the value is the module, and option parsing ends
};

struct RunOption {
    // "-H"; empty if none. One that takes a value may have it attached: -Hx.
    std::string_view short_name = {};
    // "--host"; empty if none. '-' and '_' are alike after the dashes.
    std::string_view long_name = {};
    // A single-dash long spelling also accepted, as `-host VALUE` or `-host=VALUE`; not shown
    // as a name in --help (its help text may mention it).
    std::string_view single_dash_alias = {};
    // The value's name as --help shows it ("HOSTS"); empty: a flag, which takes no value.
    std::string_view value_name = {};
    // The default --help shows; empty: none shown.
    std::string_view default_shown = {};
    std::string_view help = {};
    RunOptionRole role = RunOptionRole::option;
    // Converts `value` (empty for a flag) into `options`; throws a usage error for a bad value.
    // `name` is the option as --help names it (display_name), for the message.
    void (*apply)(run::Options& options, std::string_view name, const std::string& value) = nullptr;

    bool takes_value() const { return !value_name.empty(); }

    // The name that messages and RunWords use: the long name, else the short one.
    std::string_view display_name() const { return long_name.empty() ? short_name : long_name; }

    // The names as CLI11 takes them: "-H,--host".
    std::string cli11_names() const;
};

// Every option of `colossalai run`, in --help order.
std::span<const RunOption> run_option_table();

// The option spelled `--name` (with '-' and '_' alike after the dashes, as torchrun allows),
// if any.
const RunOption* find_long_option(std::string_view name);

} // namespace colossalai::cli
