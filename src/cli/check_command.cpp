#include "commands.hpp"

#include "colossalai/util/error.hpp"

namespace colossalai::cli {

CLI::App* add_check_command(CLI::App& app, check::Options& options) {
    CLI::App* command = app.add_subcommand(
        "check", "Report the installation: PyTorch, CUDA, Colossal-AI extensions, driver.");
    command->add_flag("-i,--installation", options.installation,
                      "Check the installation of Colossal-AI and its dependencies");
    command->add_flag("--json", options.json, "Print the report as one JSON object (implies -i)");
    command->add_option("--python", options.python,
                        "Python interpreter of the environment to inspect "
                        "(default: first python3, then python, on PATH)");
    // Its own footer: CLI11 would otherwise repeat the top-level "Run 'colossalai COMMAND
    // --help'" line, which says nothing here.
    command->footer("Exit status: 0 when no check is x, 1 when one is, 2 for a usage error.");
    return command;
}

check::Options finish_check_command(const CLI::App& command, check::Options options) {
    if (options.json) {
        options.installation = true;
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
