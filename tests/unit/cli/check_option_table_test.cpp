// The option table and what it drives are private to the cli module: their headers live beside
// the sources.
#include "../../../src/cli/check_option_table.hpp"
#include "../../../src/cli/commands.hpp"
#include "../../../src/cli/run_option_table.hpp"
#include "usage_message.hpp"

#include "colossalai/cli/app.hpp"
#include "colossalai/engines/engines.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

// `colossalai check` has one list of options, of the same type as run's: CLI11 parses them into
// check::Options through each entry's conversion, and --help (and so the man page and the
// completions) shows them as the entries say.
namespace colossalai::cli {
namespace {

using Words = std::vector<std::string>;

TEST(CheckOptionTable, IsWellFormed) {
    std::set<std::string_view> names;
    for (const CheckOption& option : check_option_table()) {
        SCOPED_TRACE(option.cli11_names());
        EXPECT_FALSE(option.long_name.empty());
        for (std::string_view name : {option.short_name, option.long_name}) {
            EXPECT_TRUE(name.empty() || names.insert(name).second)
                << "two options spelled " << name;
        }
        // CLI11 knows no single-dash long names: check's words have them respelled
        // (respell_check_aliases), which only knows aliases of the form -NAME for --NAME.
        if (!option.single_dash_alias.empty()) {
            EXPECT_EQ(std::string("-") + std::string(option.single_dash_alias), option.long_name);
        }
        EXPECT_FALSE(option.help.empty());
        EXPECT_NE(option.role, OptionRole::module);
        EXPECT_EQ(option.apply != nullptr || option.engine_option != nullptr,
                  option.role == OptionRole::option);
        EXPECT_FALSE(option.apply != nullptr && option.engine_option != nullptr);
    }
    EXPECT_EQ(check_option_table().front().role, OptionRole::help);
}

// CLI11's parse of `words` (after `colossalai check`) into check::Options, before the checks
// that span options (finish_check_command).
run::CheckOptions parsed_check_words(const Words& words) {
    CLI::App app;
    run::CheckOptions options;
    add_check_options(app, options);
    std::vector<const char*> argv = {"check"};
    for (const std::string& word : words) {
        argv.push_back(word.c_str());
    }
    app.parse(static_cast<int>(argv.size()), argv.data());
    return options;
}

// A value each entry accepts.
const std::map<std::string_view, std::string> check_samples = {
    {"--installation", ""},           {"--json", ""},
    {"--python", "/usr/bin/python3"}, {"--host", "node1,node2"},
    {"--hostfile", "hosts"},          {"--allocation", ""},
    {"--launcher", "slurm"},          {"--srun-args", "-p gpu"},
    {"--ssh-port", "2222"},           {"--ssh-timeout", "2.5"},
    {"--mpirun", "mpiexec.mpich"},    {"--mpirun-args", "-launcher ssh"},
};

TEST(CheckOptionTable, EveryEntryLandsInTheOptionsAsGiven) {
    for (const CheckOption& option : check_option_table()) {
        if (option.role != OptionRole::option) {
            continue;
        }
        SCOPED_TRACE(option.display_name());
        auto sample = check_samples.find(option.display_name());
        ASSERT_NE(sample, check_samples.end()) << "no sample value for " << option.display_name();
        run::CheckOptions applied;
        option.convert(applied, sample->second);
        EXPECT_NE(applied, run::CheckOptions{});
        // Through CLI11, by every name, as the user gives it.
        for (std::string_view name : {option.short_name, option.long_name}) {
            if (name.empty()) {
                continue;
            }
            Words words = {std::string(name)};
            if (option.takes_value()) {
                words.push_back(sample->second);
            }
            EXPECT_EQ(parsed_check_words(words), applied) << name;
        }
    }
}

TEST(CheckOptionTable, HelpShowsEveryEntryAsTheTableSays) {
    std::ostringstream out;
    Command command = parse({"colossalai", "check", "--help"}, out);
    ASSERT_TRUE(std::holds_alternative<Done>(command));
    for (const CheckOption& option : check_option_table()) {
        std::string shown = option.cli11_names();
        if (option.takes_value()) {
            shown += " " + std::string(option.value_name);
        }
        if (!option.default_shown.empty()) {
            shown += "=" + std::string(option.default_shown);
        }
        // Followed by the help, or by a line break where the names are too long for its column.
        EXPECT_TRUE(out.str().find("  " + shown + " ") != std::string::npos ||
                    out.str().find("  " + shown + "\n") != std::string::npos)
            << shown << "\n"
            << out.str();
        EXPECT_NE(out.str().find(std::string(option.help)), std::string::npos) << option.help;
    }
}

// --launcher's values are the engines' table's, for both commands, in --help and in the message.
TEST(CheckOptionTable, LauncherValuesComeFromTheEnginesTable) {
    for (const CheckOption& option : check_option_table()) {
        if (option.long_name == "--launcher") {
            EXPECT_EQ(option.value_name, engines::names("|", engines::Command::check));
            EXPECT_EQ(option.default_shown, engines::table().front()->name);
        }
    }
    for (const RunOption& option : run_option_table()) {
        if (option.long_name == "--launcher") {
            EXPECT_EQ(option.value_name, engines::names("|"));
        }
    }
    std::ostringstream out;
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "check", "-i", "--launcher", "pbs"}, out);
              }),
              "--launcher 'pbs': expected " + engines::names(" or ", engines::Command::check));
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "run", "--launcher", "pbs", "t.py"}, out);
              }),
              "--launcher 'pbs': expected " + engines::names(" or "));
    // As --help and its goldens show them: every row has a check_nodes (mpirun's since #38).
    EXPECT_EQ(engines::names("|"), "ssh|slurm|mpirun");
    EXPECT_EQ(engines::names("|", engines::Command::check), "ssh|slurm|mpirun");
}

// --ssh-port reads as run's does (#37): in decimal (026 is 26, not CLI11's octal 22), with
// run's message for a bad value.
TEST(CheckOptionTable, SshPortReadsAsRunsInDecimal) {
    auto port = [](const std::string& value) {
        return std::get<run::SshLaunch::Given>(
                   parsed_check_words({"--ssh-port", value}).engine_options)
            .ssh_port;
    };
    EXPECT_EQ(port("65535"), run::Port{65535});
    EXPECT_EQ(port("026"), run::Port{26});
    for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
             {"0", "--ssh-port '0': not a port number (1..65535)"},
             {"065536", "--ssh-port '65536': not a port number (1..65535)"},
             {"0x16", "--ssh-port '0x16': not a port number (1..65535)"},
             {"22x", "--ssh-port '22x': not a port number (1..65535)"},
             {"\n", "--ssh-port '\\x0a': not a port number (1..65535)"}}) {
        std::ostringstream out;
        EXPECT_EQ(test::usage_message([&, &value = value] {
                      parse({"colossalai", "check", "-i", "--host", "n", "--ssh-port", value}, out);
                  }),
                  message);
        EXPECT_EQ(test::usage_message([&, &value = value] {
                      parse({"colossalai", "run", "--host", "n", "--ssh-port", value, "t.py"}, out);
                  }),
                  message);
    }
}

// `-host` is --host under check as under run (#37): CLI11 alone reads -h, help.
TEST(CheckOptionTable, SingleDashHostIsHost) {
    std::ostringstream out;
    for (const Words& words : std::vector<Words>{{"-host", "node1"}, {"-host=node1"}}) {
        Words args = {"colossalai", "check", "-i"};
        args.insert(args.end(), words.begin(), words.end());
        Command command = parse(args, out);
        ASSERT_TRUE(std::holds_alternative<run::CheckOptions>(command));
        EXPECT_EQ(std::get<run::CheckOptions>(command).host, "node1");
    }
    EXPECT_EQ(out.str(), "");
}

TEST(CheckOptionTable, RespellsOnlyCheckAliasesThatAreNotValues) {
    EXPECT_EQ(respell_check_aliases({"colossalai", "check", "-i", "-host", "-host"}),
              (Words{"colossalai", "check", "-i", "--host", "-host"}));
    EXPECT_EQ(respell_check_aliases({"colossalai", "check", "--python", "-host", "-host=a"}),
              (Words{"colossalai", "check", "--python", "-host", "--host=a"}));
    EXPECT_EQ(respell_check_aliases({"colossalai", "check", "-hostfile", "-hosts"}),
              (Words{"colossalai", "check", "-hostfile", "-hosts"}));
    EXPECT_EQ(respell_check_aliases({"colossalai", "-host", "run", "-host"}),
              (Words{"colossalai", "-host", "run", "-host"}));
}

TEST(CheckOptionTable, ABadValueIsAUsageErrorNamingTheOption) {
    for (const auto& [words, message] : std::vector<std::pair<Words, std::string>>{
             {{"--launcher", "pbs"}, "--launcher 'pbs': expected ssh or slurm or mpirun"},
             {{"--ssh-timeout", "0"}, "--ssh-timeout '0': must be from 0.1 to 3600 seconds"},
             {{"--launcher", "slurm", "--srun-args", "-N 3"},
              "--srun-args: '-N' is set by the launcher itself"}}) {
        std::ostringstream out;
        Words args = {"colossalai", "check", "-i", "--host", "n"};
        args.insert(args.end(), words.begin(), words.end());
        EXPECT_EQ(test::usage_message([&] { parse(args, out); }), message);
    }
}

const CheckOption* find_check_option(std::string_view name) {
    for (const CheckOption& option : check_option_table()) {
        if (option.long_name == name) {
            return &option;
        }
    }
    return nullptr;
}

// The engines' options of check are their rows' (#37): each one a row offers under check is one
// entry, right after the one it follows there, shown as the row says and read by the row's
// function into that engine's part; none that the rows do not offer under check.
TEST(CheckOptionTable, EachEnginesOptionsOfCheckComeFromItsRow) {
    std::span<const CheckOption> table = check_option_table();
    for (const run::EngineRow* row : engines::table()) {
        for (const run::EngineOption& option : row->options) {
            SCOPED_TRACE(option.name);
            const CheckOption* entry = find_check_option(option.name);
            if (!option.check.offered()) {
                EXPECT_EQ(entry, nullptr);
                continue;
            }
            ASSERT_NE(entry, nullptr);
            EXPECT_EQ(entry->engine_option, &option);
            EXPECT_EQ(entry->value_name, option.check.value_name);
            EXPECT_EQ(entry->help, option.check.help);
            EXPECT_EQ(entry->default_shown, option.check.default_shown);
            ASSERT_NE(entry, table.data());
            EXPECT_EQ(std::prev(entry)->long_name, option.check.follows);
        }
    }
    for (const CheckOption& entry : table) {
        EXPECT_TRUE(entry.engine_option == nullptr || entry.apply == nullptr) << entry.long_name;
    }
}

// The options check shares with run (shared_options.hpp) are spelled, shown and read alike by
// both: the same value lands as the same value, a bad one gets the same message.
TEST(CheckOptionTable, TheOptionsSharedWithRunReadAlike) {
    for (std::string_view name :
         {"--python", "--hostfile", "--launcher", "--srun-args", "--ssh-timeout"}) {
        SCOPED_TRACE(name);
        const RunOption* in_run = find_long_option(name);
        const CheckOption* in_check = find_check_option(name);
        ASSERT_NE(in_run, nullptr);
        ASSERT_NE(in_check, nullptr);
        EXPECT_EQ(in_run->short_name, in_check->short_name);
        EXPECT_EQ(in_run->default_shown, in_check->default_shown);
        // Each command's --help has always named --hostfile's value its own way; --launcher's
        // values are each command's engines (LauncherValuesComeFromTheEnginesTable).
        if (name != "--hostfile" && name != "--launcher") {
            EXPECT_EQ(in_run->value_name, in_check->value_name);
        }
    }
    run::Options run_options;
    run::CheckOptions check_options;
    auto both = [&](std::string_view name, const std::string& value) {
        find_long_option(name)->convert(run_options, value);
        find_check_option(name)->convert(check_options, value);
    };
    both("--python", "/opt/venv/bin/python");
    EXPECT_EQ(run_options.python, check_options.python);
    both("--hostfile", "hosts");
    EXPECT_EQ(run_options.hostfile, check_options.hostfile);
    both("--launcher", "slurm");
    EXPECT_EQ(run_options.engine, engines::find("slurm"));
    EXPECT_EQ(check_options.engine, run_options.engine);
    both("--srun-args", "-p gpu --comment 'a b'");
    EXPECT_EQ(std::get<run::SrunLaunch::Given>(run_options.engine_options).srun_args,
              std::get<run::SrunLaunch::Given>(check_options.engine_options).srun_args);
    both("--ssh-port", "026");
    EXPECT_EQ(std::get<run::SshLaunch::Given>(run_options.engine_options).ssh_port,
              std::get<run::SshLaunch::Given>(check_options.engine_options).ssh_port);
    both("--ssh-timeout", "2.5");
    EXPECT_EQ(run_options.ssh_timeout, std::chrono::milliseconds(2500));
    EXPECT_EQ(std::get<run::SshLaunch::Given>(check_options.engine_options).ssh_timeout,
              run_options.ssh_timeout);
    for (const auto& [name, bad] :
         std::vector<std::pair<std::string_view, std::string>>{{"--srun-args", "-N 3"},
                                                               {"--srun-args", "--comment 'x"},
                                                               {"--ssh-timeout", "0"},
                                                               {"--ssh-timeout", "nan"}}) {
        SCOPED_TRACE(bad);
        std::string message = test::usage_message(
            [&, &name = name, &bad = bad] { find_long_option(name)->convert(run_options, bad); });
        EXPECT_FALSE(message.empty());
        EXPECT_EQ(test::usage_message([&, &name = name, &bad = bad] {
                      find_check_option(name)->convert(check_options, bad);
                  }),
                  message);
    }
}

} // namespace
} // namespace colossalai::cli
