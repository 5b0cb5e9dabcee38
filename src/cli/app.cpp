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

} // namespace

Command parse(const std::vector<std::string>& args, std::ostream& out) {
    CLI::App app{"Colossal-AI command line: check the installation, launch distributed training.",
                 "colossalai"};
    // A plain flag rather than CLI11's version flag, which answers as soon as it is seen and so
    // would let `--version --bogus` exit 0.
    bool version = false;
    app.add_flag("--version", version,
                 "Print the version, the commit and the libssh version; exit");
    // Hidden: writes a man page or the completion table at build time (src/CMakeLists.txt).
    std::string generate_name;
    app.add_option("--generate", generate_name, "Write a generated file to stdout")->group("");
    // Hidden: the hosts of a hostfile, one per line, as `run --hostfile` reads them (ranges
    // expanded, `user@` kept, slots, comments, CRLF and a byte-order mark left out): what the
    // shell completions offer (completions/*), so that no hostfile is parsed twice.
    std::string hostfile;
    CLI::Option* list_hosts =
        app.add_option("--list-hosts", hostfile, "Print the hosts of a hostfile")->group("");
    app.require_subcommand(0, 1);
    app.footer("Run 'colossalai COMMAND --help' for the options of a command.");

    // `run` stops parsing at the script: CLI11 only sees the launcher options before it.
    RunArguments run_arguments;
    std::vector<std::string> words = split_run_command_line(args, run_arguments);

    // A subcommand's options are registered only where CLI11 reads or prints them: registering
    // them all was the largest part of a local launch's start-up (CLI11 compares each new name
    // with every earlier one). Check's options unless the command is `run`; run's, which the
    // pre-scan reads, when help is asked for (`run --help`, `--help run`; and --generate, below).
    check::Options check_options;
    CLI::App* check_command = add_check_command(app);
    CLI::App* run_command = add_run_command(app);
    if (!run_arguments.given) {
        add_check_options(*check_command, check_options);
    } else if (std::ranges::any_of(words, [](const std::string& word) {
                   return word == "-h" || word == "--help";
               })) {
        add_run_options(*run_command, run_arguments);
    }
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

    if (version) {
        if (check_command->parsed() || run_command->parsed()) {
            throw usage_error("--version takes no command");
        }
        print_version(out);
        return Done{0};
    }
    if (list_hosts->count() > 0) {
        if (check_command->parsed() || run_command->parsed()) {
            throw usage_error("--list-hosts takes no command");
        }
        std::string text = run::read_hostfile(hostfile, "--list-hosts");
        for (const run::Host& host : run::parse_hostfile(text, hostfile)) {
            out << host.name << '\n';
        }
        return Done{0};
    }
    if (!generate_name.empty()) {
        if (check_command->parsed() || run_command->parsed()) {
            throw usage_error("--generate takes no command");
        }
        // Not `run` (it takes no command): check's options are there, run's are not yet.
        add_run_options(*run_command, run_arguments);
        out << generate(describe_command_line(app), generate_name, config::version);
        return Done{0};
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
    const auto& check_options = std::get<check::Options>(command);
    if (check_options.cluster()) {
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
