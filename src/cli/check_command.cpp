#include "check_option_table.hpp"
#include "commands.hpp"
#include "register_options.hpp"

#include "colossalai/cluster_check/command.hpp"
#include "colossalai/engines/engines.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

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

std::vector<std::string> respell_check_aliases(std::vector<std::string> args) {
    // The subcommand is the first word that is not an option (the top level has flags only).
    auto command =
        std::find_if(args.begin() + (args.empty() ? 0 : 1), args.end(),
                     [](const std::string& word) { return !util::starts_with(word, "-"); });
    if (command == args.end() || *command != "check") {
        return args;
    }
    std::span<const CheckOption> table = check_option_table();
    for (auto word = command + 1; word != args.end(); ++word) {
        auto spelled = std::find_if(table.begin(), table.end(), [&](const CheckOption& option) {
            return *word == option.short_name || *word == option.long_name;
        });
        if (spelled != table.end()) {
            if (spelled->takes_value() && word + 1 != args.end()) {
                ++word; // its value, whatever it looks like
            }
            continue;
        }
        for (const CheckOption& option : table) {
            std::string_view alias = option.single_dash_alias;
            if (!alias.empty() && util::starts_with(*word, alias) &&
                (word->size() == alias.size() || (*word)[alias.size()] == '=')) {
                word->replace(0, alias.size(), option.long_name);
                if (word->size() == option.long_name.size() && word + 1 != args.end()) {
                    ++word;
                }
                break;
            }
        }
    }
    return args;
}

namespace {

// Whether any of `engine`'s options of check was given.
bool any_given(const run::EngineRow& engine, const run::CheckOptions& options) {
    return std::ranges::any_of(engine.options, [&](const run::EngineOption& option) {
        return option.check.offered() && option.given(options.engine_options);
    });
}

} // namespace

void add_check_options(CLI::App& app, run::CheckOptions& options) {
    CLI::App* command = &app;
    for (const CheckOption& option : check_option_table()) {
        register_option(*command, option, [&options, &option](const std::string& value) {
            option.convert(options, value);
        });
    }
}

run::CheckOptions finish_check_command(const CLI::App& command, run::CheckOptions options) {
    if (options.json) {
        options.installation = true;
    }
    // The engines' own check options: the chosen engine's need cluster mode; another engine's
    // are refused in the chosen one's words.
    const run::EngineRow& engine = engines::chosen(options);
    if (!cluster_check::cluster_mode(options) && any_given(engine, options)) {
        throw usage_error("{} need --host, --hostfile or --allocation",
                          fmt::join(engines::check_options(engine), " and "));
    }
    for (const run::EngineRow* owner : engines::table()) {
        if (owner != &engine && any_given(*owner, options)) {
            throw usage_error("{}",
                              engine.check_refuse(engines::check_options(*owner), owner->name));
        }
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
