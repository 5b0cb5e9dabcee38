#pragma once

// Private to the cli module: the options that `colossalai run` and `colossalai check` share,
// each defined once (its spellings, its value's name and default, the one function that parses
// it) for either command's options struct. Each command words the help itself ("every host",
// "every node"), as its --help has always read.

#include "option_table.hpp"

#include "colossalai/slurm/srun_args.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <string>
#include <string_view>

namespace colossalai::cli::shared {

// --launcher ssh|slurm, into the command's own Launcher enum (run::Launcher, check::Launcher).
template <class Options>
void set_launcher(Options& options, std::string_view name, const std::string& value) {
    using Launcher = decltype(options.launcher);
    if (value != "ssh" && value != "slurm") {
        throw usage_error("{} '{}': expected ssh or slurm", name, util::escape_for_message(value));
    }
    options.launcher = value == "ssh" ? Launcher::ssh : Launcher::slurm;
}

template <class Options>
void set_srun_args(Options& options, std::string_view, const std::string& value) {
    options.srun_args = slurm::parse_srun_args(value);
}

template <class Options>
void set_ssh_timeout(Options& options, std::string_view name, const std::string& value) {
    options.ssh_timeout = util::parse_seconds(value, name, ssh::connect_timeout_range);
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

template <class Options>
constexpr OptionEntry<Options> launcher_option(std::string_view help) {
    return {.long_name = "--launcher",
            .value_name = "ssh|slurm",
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
