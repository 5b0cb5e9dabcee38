#pragma once

// Private to the cli module: the one way an option table's entry becomes a CLI11 option, for
// run's table (--help, the man page and the completions) and check's (which CLI11 also parses).

#include "option_table.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace colossalai::cli {

// Registers `option` on `command` as --help shows it: its names, its value's name, its default.
// `on_value` receives each value CLI11 parses for it, "" for a flag given (a flag's value is
// CLI11's: --json=false is no --json); none: the option is registered for --help only.
template <class Options>
void register_option(CLI::App& command, const OptionEntry<Options>& option,
                     std::function<void(const std::string&)> on_value = nullptr) {
    if (!on_value) {
        on_value = [](const std::string&) {};
    }
    std::string names = option.cli11_names();
    std::string help(option.help);
    CLI::Option* added = nullptr;
    if (option.role == OptionRole::help) {
        added = command.set_help_flag(names, help);
    } else if (option.takes_value()) {
        added = command.add_option_function<std::string>(names, on_value, help)
                    ->type_name(std::string(option.value_name));
    } else {
        added = command.add_flag_callback(
            names, [on_value] { on_value(""); }, help);
    }
    if (!option.default_shown.empty()) {
        added->default_str(std::string(option.default_shown));
    }
}

} // namespace colossalai::cli
