#include "commands.hpp"

#include "colossalai/run/srun_args.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

namespace colossalai::cli {

CLI::App* add_check_command(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "check", "Report the installation: PyTorch, CUDA, Colossal-AI extensions, driver.");
    // Its own footer: CLI11 would otherwise repeat the top-level "Run 'colossalai COMMAND
    // --help'" line, which says nothing here.
    command->footer(
        "Exit status: 0 when no check is x, 1 when one is (or, with --host, "
        "--hostfile, --allocation or --launcher slurm, when the nodes differ), 2 for a usage "
        "error, 255 when a node could not be checked.");
    return command;
}

void add_check_options(CLI::App& app, check::Options& options) {
    CLI::App* command = &app;
    command->add_flag("-i,--installation", options.installation,
                      "Check the installation of Colossal-AI and its dependencies");
    command->add_flag("--json", options.json, "Print the report as one JSON object (implies -i)");
    command
        ->add_option("--python", options.python,
                     "Python interpreter of the environment to inspect "
                     "(default: first python3, then python, on PATH)")
        ->type_name("PATH");
    command->add_option(
        "-H,--host", options.host,
        "Check these nodes instead of this machine (over SSH, or --launcher): \"h1,h2\" "
        "(as for 'colossalai run')");
    command->add_option("--hostfile", options.hostfile,
                        "Check the nodes of this hostfile (one host per line)");
    command->add_flag("--allocation", options.allocation,
                      "Check the nodes of the Slurm allocation (SLURM_JOB_NODELIST) or PBS job "
                      "(PBS_NODEFILE) this runs in");
    command
        ->add_option_function<std::string>(
            "--launcher",
            [&options](const std::string& value) {
                if (value != "ssh" && value != "slurm") {
                    throw usage_error("--launcher '{}': expected ssh or slurm",
                                      util::escape_for_message(value));
                }
                options.launcher = value == "ssh" ? check::Launcher::ssh : check::Launcher::slurm;
            },
            "How the nodes are reached: ssh, or slurm (one srun step; alone, inside an "
            "allocation: the allocation's nodes)")
        ->type_name("ssh|slurm")
        ->default_str("ssh");
    command
        ->add_option_function<std::string>(
            "--srun-args",
            [&options](const std::string& text) { options.srun_args = run::parse_srun_args(text); },
            "With --launcher slurm: more srun options, as a shell would split them")
        ->type_name("ARGS");
    command
        ->add_option("--ssh-port", options.ssh_port,
                     "SSH port for every node (else ~/.ssh/config, else 22)")
        ->check(CLI::Range(1, 65535));
    command
        ->add_option_function<std::string>(
            "--ssh-timeout",
            [&options](const std::string& text) {
                options.ssh_timeout =
                    util::parse_seconds(text, "--ssh-timeout", ssh::connect_timeout_range);
            },
            "SSH connect timeout per node")
        ->type_name("SECONDS")
        ->default_str("30");
}

check::Options finish_check_command(const CLI::App& command, check::Options options) {
    if (options.json) {
        options.installation = true;
    }
    if (!options.cluster() && (options.ssh_port || command.count("--ssh-timeout") > 0)) {
        throw usage_error("--ssh-port and --ssh-timeout need --host, --hostfile or --allocation");
    }
    if (options.launcher == check::Launcher::slurm &&
        (options.ssh_port || command.count("--ssh-timeout") > 0)) {
        throw usage_error("--ssh-port and --ssh-timeout are for --launcher ssh (srun starts the "
                          "checks)");
    }
    if (options.launcher != check::Launcher::slurm && command.count("--srun-args") > 0) {
        throw usage_error("--srun-args needs --launcher slurm");
    }
    if (!options.installation) {
        // help(prev) names the command after `prev`: "Usage: colossalai check [OPTIONS]".
        const CLI::App* parent = command.get_parent();
        throw usage_error("no option given to 'colossalai check'\n{}",
                          command.help(parent != nullptr ? parent->get_name() : "colossalai"));
    }
    return options;
}

} // namespace colossalai::cli
