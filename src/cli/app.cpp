#include "colossalai/cli/app.hpp"

#include "commands.hpp"
#include "reference.hpp"

#include "colossalai/check/command.hpp"
#include "colossalai/cluster_check/command.hpp"
#include "colossalai/commit.hpp"
#include "colossalai/config.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/ssh/library.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace colossalai::cli {

namespace {

// The subcommand named on the command line, for the "see --help" hint of a usage error.
std::string command_path(const std::vector<std::string>& args) {
    for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "check" || args[i] == "run") {
            return "colossalai " + args[i];
        }
        if (args[i].empty() || args[i][0] != '-') {
            break;
        }
    }
    return "colossalai";
}

// What --version prints: the release, the commit it was built from and the libssh that remote
// nodes would use (loading it costs a few milliseconds, only here and when a node is remote).
void print_version(std::ostream& out) {
    fmt::print(out, "colossalai {}\ncommit {}\n", config::version, config::commit);
    try {
        fmt::print(out, "libssh {}\n", ssh::library_version());
    } catch (const Error& e) {
        fmt::print(out, "libssh none: {}\n", e.what());
    }
}

// The command line as data, for the generated man pages and completions (`--generate`).
CommandReference describe_command_line(const CLI::App& app) {
    CommandReference root = describe(app, "colossalai");
    for (CommandReference& sub : root.subcommands) {
        // The pre-scan of `run` takes '-' and '_' alike (split_run_arguments).
        sub.underscore_dash_alike = command_name(sub) == "run";
    }
    return root;
}

// The options of `colossalai` itself, each of which answers without a command.
struct TopLevelOptions {
    bool version = false;
    std::string generate_name; // --generate, hidden
    std::string hostfile;      // --list-hosts, hidden
    CLI::Option* list_hosts = nullptr;
};

// Registers the top-level options on `app`, in the order --help lists them.
void add_top_level_options(CLI::App& app, TopLevelOptions& options) {
    // A plain flag rather than CLI11's version flag, which answers as soon as it is seen and so
    // would let `--version --bogus` exit 0.
    app.add_flag("--version", options.version,
                 "Print the version, the commit and the libssh version; exit");
    // Hidden: writes a man page or the completion table at build time (src/CMakeLists.txt).
    app.add_option("--generate", options.generate_name, "Write a generated file to stdout")
        ->group("");
    // Hidden: the hosts of a hostfile, one per line, as `run --hostfile` reads them (ranges
    // expanded, `user@` kept, slots, comments, CRLF and a byte-order mark left out): what the
    // shell completions offer (completions/*), so that no hostfile is parsed twice.
    options.list_hosts =
        app.add_option("--list-hosts", options.hostfile, "Print the hosts of a hostfile")
            ->group("");
}

// A subcommand's options are registered only where CLI11 reads or prints them: registering
// them all was the largest part of a local launch's start-up (CLI11 compares each new name
// with every earlier one). Check's options unless the command is `run`; run's, which the
// pre-scan reads, when help is asked for (`run --help`, `--help run`; and --generate, later).
void add_options_in_use(CLI::App& check_command, run::CheckOptions& check_options,
                        CLI::App& run_command, RunArguments& run_arguments,
                        const std::vector<std::string>& words) {
    if (!run_arguments.given) {
        add_check_options(check_command, check_options);
    } else if (std::ranges::any_of(words, [](const std::string& word) {
                   return word == "-h" || word == "--help";
               })) {
        add_run_options(run_command, run_arguments);
    }
}

// Lets CLI11 parse `words`. Returns the answer when they asked for help (printed on `out`);
// throws a usage error, on one line, when CLI11 rejects them.
std::optional<Command> parse_words(CLI::App& app, const std::vector<std::string>& words,
                                   std::ostream& out) {
    std::vector<const char*> argv;
    argv.reserve(words.size());
    for (const std::string& arg : words) {
        argv.push_back(arg.c_str());
    }
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp& e) {
        std::ostringstream ignored;
        return Done{app.exit(e, out, ignored)};
    } catch (const CLI::CallForAllHelp& e) {
        std::ostringstream ignored;
        return Done{app.exit(e, out, ignored)};
    } catch (const CLI::ParseError& e) {
        // CLI11 quotes the words it rejects as they are: escaped, the message stays one line.
        throw usage_error("{}", util::escape_for_message(e.what()));
    }
    return std::nullopt;
}

// Answers a parsed top-level option (--version, --list-hosts, --generate) on `out`; none of
// them takes a command (a usage error). Nothing when none was given.
std::optional<Command> answer_top_level_option(CLI::App& app, const TopLevelOptions& options,
                                               bool command_given, CLI::App& run_command,
                                               RunArguments& run_arguments, std::ostream& out) {
    if (options.version) {
        if (command_given) {
            throw usage_error("--version takes no command");
        }
        print_version(out);
        return Done{0};
    }
    if (options.list_hosts->count() > 0) {
        if (command_given) {
            throw usage_error("--list-hosts takes no command");
        }
        std::string text = run::read_hostfile(options.hostfile, "--list-hosts");
        for (const run::Host& host : run::parse_hostfile(text, options.hostfile)) {
            out << host.name << '\n';
        }
        return Done{0};
    }
    if (!options.generate_name.empty()) {
        if (command_given) {
            throw usage_error("--generate takes no command");
        }
        // Not `run` (it takes no command): check's options are there, run's are not yet.
        add_run_options(run_command, run_arguments);
        out << generate(describe_command_line(app), options.generate_name, config::version);
        return Done{0};
    }
    return std::nullopt;
}

} // namespace

Command parse(const std::vector<std::string>& args, std::ostream& out) {
    CLI::App app{"Colossal-AI command line: check the installation, launch distributed training.",
                 "colossalai"};
    TopLevelOptions top_level;
    add_top_level_options(app, top_level);
    app.require_subcommand(0, 1);
    app.footer("Run 'colossalai COMMAND --help' for the options of a command.");

    // `run` stops parsing at the script: CLI11 only sees the launcher options before it.
    RunArguments run_arguments;
    std::vector<std::string> words =
        respell_check_aliases(split_run_command_line(args, run_arguments));
    run::CheckOptions check_options;
    CLI::App* check_command = add_check_command(app);
    CLI::App* run_command = add_run_command(app);
    add_options_in_use(*check_command, check_options, *run_command, run_arguments, words);

    if (auto help = parse_words(app, words, out)) {
        return std::move(*help);
    }
    bool command_given = check_command->parsed() || run_command->parsed();
    if (auto answer = answer_top_level_option(app, top_level, command_given, *run_command,
                                              run_arguments, out)) {
        return std::move(*answer);
    }
    if (check_command->parsed()) {
        return finish_check_command(*check_command, check_options);
    }
    if (run_command->parsed()) {
        return finish_run_command(run_arguments);
    }
    throw usage_error("no command given (expected 'check' or 'run')\n{}", app.help());
}

int execute(const Command& command, std::ostream& out, std::ostream& err) {
    if (const auto* done = std::get_if<Done>(&command)) {
        return done->exit_code;
    }
    if (const auto* run_options = std::get_if<run::Options>(&command)) {
        return execute_run_command(*run_options, out, err);
    }
    const auto& check_options = std::get<run::CheckOptions>(command);
    if (cluster_check::cluster_mode(check_options)) {
        return cluster_check::execute(check_options, out, err);
    }
    return check::execute(check_options, out, err);
}

int main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    try {
        Command command = parse(args, out);
        return execute(command, out, err);
    } catch (const Error& e) {
        out.flush();
        if (e.kind() == Error::Kind::usage) {
            fmt::print(err, "Error: {}\nRun '{} --help' for more information.\n", e.what(),
                       command_path(args));
        } else {
            fmt::print(err, "colossalai: error: {}\n", e.what());
        }
        return e.exit_code();
    }
}

} // namespace colossalai::cli
