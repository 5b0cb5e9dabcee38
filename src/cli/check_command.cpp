#include "check_option_table.hpp"
#include "commands.hpp"
#include "register_options.hpp"

#include "colossalai/util/error.hpp"

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
    for (const CheckOption& option : check_option_table()) {
        register_option(*command, option, [&options, &option](const std::string& value) {
            option.apply(options, option.display_name(), value);
        });
    }
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
