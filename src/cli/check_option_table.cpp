#include "check_option_table.hpp"

#include "shared_options.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <CLI/CLI.hpp>

namespace colossalai::cli {

namespace {

using check::Options;

// Read as CLI11 reads an int within CLI::Range(1, 65535), which check's --ssh-port always was:
// strtoll's bases (026 is 22), and CLI11's message for a value out of range or no number.
void set_check_ssh_port(Options& options, std::string_view name, const std::string& value) {
    std::string input = value;
    std::string error = CLI::Range(1, 65535)(input);
    if (!error.empty()) {
        throw usage_error("{}: {}", name, util::escape_for_message(error));
    }
    int port = 0;
    CLI::detail::lexical_cast(input, port);
    options.ssh_port = port;
}

constexpr CheckOption table[] = {
    help_option<Options>(),
    {.short_name = "-i",
     .long_name = "--installation",
     .help = "Check the installation of Colossal-AI and its dependencies",
     .apply = set_flag<Options, &Options::installation>},
    {.long_name = "--json",
     .help = "Print the report as one JSON object (implies -i)",
     .apply = set_flag<Options, &Options::json>},
    shared::python_option<Options>(
        "Python interpreter of the environment to inspect (default: first python3, then "
        "python, on PATH)"),
    {.short_name = "-H",
     .long_name = "--host",
     .value_name = "TEXT",
     .help = "Check these nodes instead of this machine (over SSH, or --launcher): \"h1,h2\" (as "
             "for 'colossalai run')",
     .apply = keep_text<Options, &Options::host>},
    shared::hostfile_option<Options>("TEXT",
                                     "Check the nodes of this hostfile (one host per line)"),
    {.long_name = "--allocation",
     .help = "Check the nodes of the Slurm allocation (SLURM_JOB_NODELIST) or PBS job "
             "(PBS_NODEFILE) this runs in",
     .apply = set_flag<Options, &Options::allocation>},
    shared::launcher_option<Options>(
        "How the nodes are reached: ssh, or slurm (one srun step; alone, inside an "
        "allocation: the allocation's nodes)"),
    shared::srun_args_option<Options>(
        "With --launcher slurm: more srun options, as a shell would split them"),
    {.long_name = "--ssh-port",
     .value_name = "INT:INT in [1 - 65535]",
     .help = "SSH port for every node (else ~/.ssh/config, else 22)",
     .apply = set_check_ssh_port},
    shared::ssh_timeout_option<Options>("SSH connect timeout per node"),
};

} // namespace

std::span<const CheckOption> check_option_table() {
    return table;
}

} // namespace colossalai::cli
