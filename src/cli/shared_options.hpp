#pragma once

// Private to the cli module: the options that `colossalai run` and `colossalai check` share,
// each defined once (its spellings, its value's name and default, the one function that parses
// it) for either command's options struct. Each command words the help itself ("every host",
// "every node"), as its --help has always read.

#include "option_table.hpp"

#include "colossalai/check/options.hpp"
#include "colossalai/engines/engines.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/slurm/srun_args.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace colossalai::cli::shared {

// --launcher NAME: an engine of the engines' table, into the command's Launcher (run's: the row's;
// check's own enum, until check reaches its nodes through the rows).
template <class Options>
void set_launcher(Options& options, std::string_view name, const std::string& value) {
    const run::EngineRow* row = engines::find(value);
    if (row == nullptr) {
        throw usage_error("{} '{}': expected {}", name, util::escape_for_message(value),
                          engines::names(" or "));
    }
    if constexpr (std::is_same_v<decltype(options.launcher), run::Launcher>) {
        options.launcher = row->launcher;
    } else {
        if (row->launcher == run::Launcher::mpirun) {
            throw usage_error("{} mpirun: `colossalai check` does not reach nodes through mpirun "
                              "yet (use --launcher ssh, or slurm)",
                              name);
        }
        options.launcher =
            row->launcher == run::Launcher::slurm ? check::Launcher::slurm : check::Launcher::ssh;
    }
}

template <class Options>
void set_srun_args(Options& options, std::string_view, const std::string& value) {
    options.srun_args = slurm::parse_srun_args(value);
}

template <class Options>
void set_ssh_timeout(Options& options, std::string_view name, const std::string& value) {
    options.ssh_timeout = util::parse_seconds(value, name, ssh::connect_timeout_range);
}

// A port in decimal (026 is 26); a number outside 1..65535 is named as the number it is
// (run::checked_port).
inline run::Port to_port(const std::string& text, std::string_view option) {
    std::optional<int> port = util::parse_integer<int>(text);
    if (!port) {
        throw usage_error("{} '{}': not a port number (1..65535)", option,
                          util::escape_for_message(text));
    }
    return run::checked_port(*port, option);
}

// --ssh-port, read alike by both commands.
template <class Options>
void set_ssh_port(Options& options, std::string_view name, const std::string& value) {
    run::Port port = to_port(value, name);
    if constexpr (std::is_same_v<decltype(options.ssh_port), std::optional<run::Port>>) {
        options.ssh_port = port;
    } else {
        options.ssh_port = port.number;
    }
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
constexpr OptionEntry<Options> ssh_port_option(std::string_view value_name, std::string_view help) {
    return {.long_name = "--ssh-port",
            .value_name = value_name,
            .help = help,
            .apply = set_ssh_port<Options>};
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

// Its value's name lists the engines' table (engines::names("|"), checked by the unit tests).
template <class Options>
constexpr OptionEntry<Options> launcher_option(std::string_view help) {
    return {.long_name = "--launcher",
            .value_name = "ssh|slurm|mpirun",
            .default_shown = "ssh",
            .help = help,
            .apply = set_launcher<Options>};
}

template <class Options>
constexpr OptionEntry<Options> srun_args_option(std::string_view help) {
    return {.long_name = "--srun-args",
            .value_name = "ARGS",
            .help = help,
            .apply = set_srun_args<Options>};
}

template <class Options>
constexpr OptionEntry<Options> ssh_timeout_option(std::string_view help) {
    return {.long_name = "--ssh-timeout",
            .value_name = "SECONDS",
            .default_shown = "30",
            .help = help,
            .apply = set_ssh_timeout<Options>};
}

} // namespace colossalai::cli::shared
