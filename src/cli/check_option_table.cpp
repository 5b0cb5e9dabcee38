#include "check_option_table.hpp"

#include "colossalai/run/srun_args.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <CLI/CLI.hpp>

namespace colossalai::cli {

namespace {

using check::Options;

void set_installation(Options& options, std::string_view, const std::string&) {
    options.installation = true;
}

void set_json(Options& options, std::string_view, const std::string&) {
    options.json = true;
}

void set_allocation(Options& options, std::string_view, const std::string&) {
    options.allocation = true;
}

void keep_check_python(Options& options, std::string_view, const std::string& value) {
    options.python = value;
}

void keep_check_host(Options& options, std::string_view, const std::string& value) {
    options.host = value;
}

void keep_check_hostfile(Options& options, std::string_view, const std::string& value) {
    options.hostfile = value;
}

void set_check_launcher(Options& options, std::string_view name, const std::string& value) {
    if (value != "ssh" && value != "slurm") {
        throw usage_error("{} '{}': expected ssh or slurm", name, util::escape_for_message(value));
    }
    options.launcher = value == "ssh" ? check::Launcher::ssh : check::Launcher::slurm;
}

void set_check_srun_args(Options& options, std::string_view, const std::string& value) {
    options.srun_args = run::parse_srun_args(value);
}

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

void set_check_ssh_timeout(Options& options, std::string_view name, const std::string& value) {
    options.ssh_timeout = util::parse_seconds(value, name, ssh::connect_timeout_range);
}

constexpr CheckOption table[] = {
    help_option<Options>(),
    {.short_name = "-i",
     .long_name = "--installation",
     .help = "Check the installation of Colossal-AI and its dependencies",
     .apply = set_installation},
    {.long_name = "--json",
     .help = "Print the report as one JSON object (implies -i)",
     .apply = set_json},
    {.long_name = "--python",
     .value_name = "PATH",
     .help = "Python interpreter of the environment to inspect (default: first python3, then "
             "python, on PATH)",
     .apply = keep_check_python},
    {.short_name = "-H",
     .long_name = "--host",
     .value_name = "TEXT",
     .help = "Check these nodes instead of this machine (over SSH, or --launcher): \"h1,h2\" (as "
             "for 'colossalai run')",
     .apply = keep_check_host},
    {.long_name = "--hostfile",
     .value_name = "TEXT",
     .help = "Check the nodes of this hostfile (one host per line)",
     .apply = keep_check_hostfile},
    {.long_name = "--allocation",
     .help = "Check the nodes of the Slurm allocation (SLURM_JOB_NODELIST) or PBS job "
             "(PBS_NODEFILE) this runs in",
     .apply = set_allocation},
    {.long_name = "--launcher",
     .value_name = "ssh|slurm",
     .default_shown = "ssh",
     .help = "How the nodes are reached: ssh, or slurm (one srun step; alone, inside an "
             "allocation: the allocation's nodes)",
     .apply = set_check_launcher},
    {.long_name = "--srun-args",
     .value_name = "ARGS",
     .help = "With --launcher slurm: more srun options, as a shell would split them",
     .apply = set_check_srun_args},
    {.long_name = "--ssh-port",
     .value_name = "INT:INT in [1 - 65535]",
     .help = "SSH port for every node (else ~/.ssh/config, else 22)",
     .apply = set_check_ssh_port},
    {.long_name = "--ssh-timeout",
     .value_name = "SECONDS",
     .default_shown = "30",
     .help = "SSH connect timeout per node",
     .apply = set_check_ssh_timeout},
};

} // namespace

std::span<const CheckOption> check_option_table() {
    return table;
}

} // namespace colossalai::cli
