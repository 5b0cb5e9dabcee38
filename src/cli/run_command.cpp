#include "commands.hpp"
#include "register_options.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/launch/dry_run.hpp"
#include "colossalai/launch/execute.hpp"
#include "colossalai/launch/local_rendezvous.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/ssh/client_config.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/ostream.h>

#include <cstdlib>

namespace colossalai::cli {

std::vector<std::string> split_run_command_line(const std::vector<std::string>& args,
                                                RunArguments& arguments) {
    // The subcommand is the first word that is not an option (the top level has flags only).
    auto command =
        std::find_if(args.begin() + (args.empty() ? 0 : 1), args.end(),
                     [](const std::string& word) { return !util::starts_with(word, "-"); });
    if (command == args.end() || *command != "run") {
        return args;
    }
    arguments.given = true;
    arguments.words = split_run_arguments({command + 1, args.end()});
    std::vector<std::string> for_cli11(args.begin(), command + 1);
    if (arguments.words.help) {
        for_cli11.emplace_back("--help");
    }
    return for_cli11;
}

CLI::App* add_run_command(CLI::App& app) {
    CLI::App* command = app.add_subcommand(
        "run", "Launch distributed training: torchrun on every node, locally, over SSH or "
               "through Slurm's srun.");
    command->footer(
        "Option parsing ends at the script (or at -m MODULE): every later word goes to the\n"
        "script unchanged, even if it looks like a launcher option. A literal -- may precede\n"
        "the script. Long options may be written with '-' for '_' (--nproc-per-node).");
    return command;
}

void add_run_options(CLI::App& app, RunArguments& arguments) {
    CLI::App* command = &app;
    // The values come from the pre-scan: these registrations feed --help only (and, through
    // it, the man page and the completions).
    for (const RunOption& option : run_option_table()) {
        register_option(*command, option);
    }
    command->add_option("SCRIPT", arguments.help_only, "The training script (.py)");
    command->add_option("ARGS", arguments.help_only_args, "Passed to the script unchanged");
}

run::Options finish_run_command(const RunArguments& arguments) {
    const RunWords& words = arguments.words;
    run::Options options;
    for (const GivenOption& given : words.options) { // in order: the last of a repeat wins
        given.option->convert(options, given.value);
    }
    options.module = words.module;
    options.script = words.script;
    options.script_args = words.script_args;
    run::validate_options(options);
    engines::validate(options);
    return options;
}

int execute_run_command(const run::Options& options, std::ostream& out, std::ostream& err) {
    // The master address other nodes use is an alias's HostName: the ssh config is read here,
    // above run, which cannot include ssh.
    run::Plan plan = run::prepare(options, engines::chosen(options), ssh::ConfiguredHostNames());
    for (const std::string& notice : plan.notices) {
        fmt::print(err, "colossalai: {}\n", notice);
    }
    for (const std::string& warning : plan.warnings) {
        fmt::print(err, "colossalai: warning: {}\n", warning);
    }
    if (options.dry_run) {
        launch::write_dry_run(plan, out);
        return 0;
    }
    if (launch::checks_rendezvous_locally(plan)) {
        if (std::optional<int> refused = launch::check_rendezvous_locally(plan, err)) {
            return *refused;
        }
    }
    // The launcher writes to the file descriptors itself, after what the streams hold.
    out.flush();
    err.flush();
    return launch::execute(plan);
}

} // namespace colossalai::cli
