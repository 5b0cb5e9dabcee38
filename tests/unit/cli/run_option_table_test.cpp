// The option table and what it drives are private to the cli module: their headers live beside
// the sources.
#include "../../../src/cli/commands.hpp"
#include "../../../src/cli/reference.hpp"
#include "../../../src/cli/run_arguments.hpp"
#include "../../../src/cli/run_option_table.hpp"
#include "usage_message.hpp"

#include "colossalai/cli/app.hpp"
#include "colossalai/engines/engines.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

// `colossalai run` has one list of options: the scanner, --help (and so the man page and the
// completions) and the conversion into run::Options all follow it.
namespace colossalai::cli {
namespace {

using Words = std::vector<std::string>;

// `name` with '-' and '_' swapped after the leading dashes.
std::string swapped(std::string_view name) {
    std::string result(name);
    for (size_t i = 2; i < result.size(); ++i) {
        result[i] = result[i] == '-' ? '_' : result[i] == '_' ? '-' : result[i];
    }
    return result;
}

// Every spelling of `option` that stands alone as a word: the short name, the long name as
// listed and with '-' and '_' swapped, the single-dash alias.
Words spellings(const RunOption& option) {
    Words result;
    for (std::string_view name : {option.short_name, option.long_name, option.single_dash_alias}) {
        if (!name.empty()) {
            result.emplace_back(name);
        }
    }
    if (!option.long_name.empty() && swapped(option.long_name) != option.long_name) {
        result.push_back(swapped(option.long_name));
    }
    return result;
}

// The same spellings with the value in the word: `--name=v`, `-Xv`, `-alias=v`.
Words attached_spellings(const RunOption& option, const std::string& value) {
    Words result;
    if (!option.short_name.empty()) {
        result.push_back(std::string(option.short_name) + value);
    }
    for (std::string_view name : {option.long_name, option.single_dash_alias}) {
        if (!name.empty()) {
            result.push_back(std::string(name) + "=" + value);
        }
    }
    return result;
}

std::string help_of_run() {
    std::ostringstream out;
    Command command = parse({"colossalai", "run", "--help"}, out);
    EXPECT_TRUE(std::holds_alternative<Done>(command));
    return out.str();
}

std::string generated(const std::string& name) {
    std::ostringstream out;
    Command command = parse({"colossalai", "--generate=" + name}, out);
    EXPECT_TRUE(std::holds_alternative<Done>(command));
    return out.str();
}

TEST(RunOptionTable, IsWellFormed) {
    std::set<std::string> names; // '-' and '_' alike, as the scanner reads them
    for (const RunOption& option : run_option_table()) {
        SCOPED_TRACE(option.cli11_names());
        EXPECT_FALSE(option.short_name.empty() && option.long_name.empty());
        if (!option.short_name.empty()) {
            EXPECT_EQ(option.short_name.size(), 2u);
            EXPECT_EQ(option.short_name[0], '-');
            EXPECT_NE(option.short_name[1], '-');
        }
        if (!option.long_name.empty()) {
            EXPECT_GT(option.long_name.size(), 3u);
            EXPECT_EQ(option.long_name.substr(0, 2), "--");
        }
        if (!option.single_dash_alias.empty()) {
            EXPECT_EQ(option.single_dash_alias[0], '-');
            EXPECT_NE(option.single_dash_alias[1], '-');
        }
        for (std::string_view name :
             {option.short_name, option.long_name, option.single_dash_alias}) {
            if (!name.empty()) {
                std::string key(name);
                std::replace(key.begin(), key.end(), '-', '_');
                EXPECT_TRUE(names.insert(key).second) << "two options spelled " << name;
            }
        }
        EXPECT_FALSE(option.help.empty());
        // Only what lands in run::Options converts a value; --help and -m are the scanner's.
        EXPECT_EQ(option.apply != nullptr || option.engine_option != nullptr,
                  option.role == OptionRole::option);
        if (option.role == OptionRole::module) {
            EXPECT_TRUE(option.takes_value());
        }
        if (option.role == OptionRole::help) {
            EXPECT_FALSE(option.takes_value());
        }
    }
}

// What the scanner made of `option` given with `value`, before the script `t.py`: a recorded
// option, --help, or -m (which ends option parsing, so t.py is the module's argument).
void expect_scanned(const RunWords& words, const RunOption& option, const std::string& value) {
    switch (option.role) {
    case OptionRole::help:
        EXPECT_TRUE(words.help);
        EXPECT_TRUE(words.options.empty());
        EXPECT_EQ(words.script, "t.py");
        break;
    case OptionRole::module:
        EXPECT_EQ(words.module, value);
        EXPECT_EQ(words.script, std::nullopt);
        EXPECT_EQ(words.script_args, Words{"t.py"});
        EXPECT_TRUE(words.options.empty());
        break;
    case OptionRole::option:
        EXPECT_EQ(words.script, "t.py");
        ASSERT_EQ(words.options.size(), 1u);
        EXPECT_EQ(words.options[0].option, &option);
        EXPECT_EQ(words.options[0].value, value);
        break;
    }
}

TEST(RunOptionTable, TheScannerTakesEverySpellingOfEveryEntry) {
    for (const RunOption& option : run_option_table()) {
        for (const std::string& spelling : spellings(option)) {
            SCOPED_TRACE(spelling);
            if (option.takes_value()) {
                // An option that takes a value swallows the next word, whatever it looks like.
                expect_scanned(split_run_arguments({spelling, "--dry-run", "t.py"}), option,
                               "--dry-run");
            } else {
                expect_scanned(split_run_arguments({spelling, "t.py"}), option, "");
            }
        }
    }
}

TEST(RunOptionTable, TheScannerTakesAValueInTheWord) {
    for (const RunOption& option : run_option_table()) {
        if (!option.takes_value()) {
            continue;
        }
        for (const std::string& word : attached_spellings(option, "v=1")) {
            SCOPED_TRACE(word);
            expect_scanned(split_run_arguments({word, "t.py"}), option, "v=1");
        }
    }
}

TEST(RunOptionTable, AValueIsRequiredWhereTheTableSaysSoAndRefusedElsewhere) {
    for (const RunOption& option : run_option_table()) {
        for (const std::string& spelling : spellings(option)) {
            SCOPED_TRACE(spelling);
            if (option.takes_value()) {
                std::string expected = option.role == OptionRole::module
                                           ? spelling + " needs a module name"
                                           : "option '" + spelling + "' needs a value";
                EXPECT_EQ(test::usage_message([&] { split_run_arguments({spelling}); }), expected);
            } else if (spelling.substr(0, 2) == "--") {
                EXPECT_EQ(test::usage_message([&] { split_run_arguments({spelling + "=1"}); }),
                          "option '" + std::string(option.display_name()) + "' takes no value");
            }
        }
    }
}

TEST(RunOptionTable, AnOptionNotInTheTableIsRefused) {
    for (const RunOption& option : run_option_table()) {
        if (option.long_name.empty()) {
            continue;
        }
        std::string longer = std::string(option.long_name) + "x";
        ASSERT_EQ(find_long_option(longer), nullptr);
        EXPECT_EQ(test::usage_message([&] {
                      split_run_arguments({longer, "1", "t.py"});
                  }),
                  "unknown option '" + longer + "' (options for the script go after the script)");
        // A long name with one dash is refused too, with the hint; unless it reads as a short
        // option with its value attached (`-master_port` is `-m aster_port`, as before).
        std::string one_dash = std::string(option.long_name.substr(1));
        const auto table = run_option_table();
        bool attached = std::any_of(table.begin(), table.end(), [&](const RunOption& other) {
            return other.takes_value() && !other.short_name.empty() &&
                   one_dash.substr(0, 2) == other.short_name;
        });
        if (one_dash != option.single_dash_alias && !attached) {
            EXPECT_EQ(test::usage_message([&] {
                          split_run_arguments({one_dash, "t.py"});
                      }),
                      "unknown option '" + one_dash + "' (did you mean '-" + one_dash + "'?)");
        }
    }
    EXPECT_EQ(test::usage_message([] {
                  split_run_arguments({"-q", "t.py"});
              }),
              "unknown option '-q'");
}

TEST(RunOptionTable, HelpShowsEveryEntryInTableOrder) {
    std::string help = help_of_run();
    size_t previous = 0;
    for (const RunOption& option : run_option_table()) {
        std::string shown = "  " + option.cli11_names();
        if (option.takes_value()) {
            shown += " " + std::string(option.value_name);
        }
        if (!option.default_shown.empty()) {
            shown += "=" + std::string(option.default_shown);
        }
        size_t at = help.find(shown + " ");
        if (at == std::string::npos) {
            at = help.find(shown + "\n"); // a long name: the help text goes on the next line
        }
        ASSERT_NE(at, std::string::npos) << shown << "\n" << help;
        EXPECT_GT(at, previous) << shown;
        EXPECT_NE(help.find(std::string(option.help), at), std::string::npos) << option.help;
        previous = at;
    }
}

TEST(RunOptionTable, TheManPageAndTheCompletionsListEveryEntry) {
    std::string table = generated("completion-table");
    std::string page = generated("colossalai-run.1");
    for (const RunOption& option : run_option_table()) {
        SCOPED_TRACE(option.cli11_names());
        // The completion row names every spelling that stands alone, the alias aside (its help
        // text mentions it).
        std::string row_start = "option\trun\t" + option.cli11_names();
        size_t row = table.find(row_start);
        ASSERT_NE(row, std::string::npos) << table;
        std::string line = table.substr(row, table.find('\n', row) - row);
        for (const std::string& spelling : spellings(option)) {
            if (spelling != option.single_dash_alias) {
                EXPECT_NE(line.find(spelling), std::string::npos) << spelling << " in " << line;
            }
        }
        std::string kind = !option.takes_value() ? "flag" : "";
        if (!kind.empty()) {
            EXPECT_NE(line.find("\t" + kind + "\t"), std::string::npos) << line;
        }
        // The man page: each name in bold, with '-' escaped as roff wants.
        for (std::string_view name : {option.short_name, option.long_name}) {
            if (name.empty()) {
                continue;
            }
            std::string bold = "\\fB";
            for (char c : name) {
                bold += c == '-' ? std::string("\\-") : std::string(1, c);
            }
            EXPECT_NE(page.find(bold + "\\fR"), std::string::npos) << bold;
        }
    }
}

// A value each option converts (the test fails for an entry added without one here).
const std::map<std::string, std::string, std::less<>> samples = {
    {"--host", "a,b"},
    {"--hostfile", "hosts"},
    {"--include", "a"},
    {"--exclude", "b"},
    {"--num_nodes", "3"},
    {"--nproc_per_node", "4"},
    {"--master_port", "1234"},
    {"--master_addr", "10.0.0.1"},
    {"--nnodes", "2:4"},
    {"--max_restarts", "3"},
    {"--rdzv_backend", "c10d"},
    {"--rdzv_endpoint", "node1:29400"},
    {"--rdzv_id", "job7"},
    {"--extra_launch_args", "tee=1"},
    {"--ssh-port", "2222"},
    {"--ssh-timeout", "2.5"},
    {"--strict-host-key-checking", "accept-new"},
    {"--ssh-client", "openssh"},
    {"--kill-grace", "1"},
    {"--launcher", "slurm"},
    {"--srun-args", "-p gpu"},
    {"--mpirun", "/opt/mpi/bin/mpirun"},
    {"--mpirun-args", "--mca plm_rsh_agent ssh"},
    {"--network-interface", "eth0"},
    {"--no-rendezvous-check", ""},
    {"--python", "/usr/bin/python3"},
    {"-x", "A=1"},
    {"--env-file", "env"},
    {"--env-exclude", "N*"},
    {"--log-dir", "logs"},
    {"--dry-run", ""},
};

TEST(RunOptionTable, EveryRecordedEntryLandsInTheOptions) {
    for (const RunOption& option : run_option_table()) {
        if (option.role != OptionRole::option) {
            continue;
        }
        SCOPED_TRACE(option.display_name());
        auto sample = samples.find(option.display_name());
        ASSERT_NE(sample, samples.end()) << "no sample value for " << option.display_name();
        run::Options options;
        option.convert(options, sample->second);
        EXPECT_NE(options, run::Options{});
        // Through the whole command line, as the user gives it.
        Words words = {"colossalai", "run", "--nproc_per_node=1"};
        if (option.takes_value()) {
            words.push_back(std::string(option.display_name()) +
                            (option.long_name.empty() ? "" : "=") + sample->second);
        } else {
            words.emplace_back(option.display_name());
        }
        RunArguments arguments;
        split_run_command_line(words, arguments);
        ASSERT_EQ(arguments.words.options.size(), 2u);
        EXPECT_EQ(arguments.words.options[1].option, &option);
        EXPECT_EQ(arguments.words.options[1].value, sample->second);
    }
}

// An engine's option, for the placement's tests: only its names matter.
constexpr run::EngineOption placed(std::string_view name, std::string_view follows) {
    return {.name = name, .run = {.value_name = "V", .help = "h", .follows = follows}};
}

constexpr run::EngineOption first_engines[] = {placed("--one-b", "--b"),
                                               placed("--one-b-after", "--one-b")};
constexpr run::EngineOption second_engines[] = {placed("--two-b", "--b"), placed("--two-a", "--a")};
constexpr run::EngineRow first{.name = "first", .options = first_engines};
constexpr run::EngineRow second{.name = "second", .options = second_engines};

std::vector<std::string_view> long_names(const std::vector<RunOption>& table) {
    std::vector<std::string_view> names;
    for (const RunOption& option : table) {
        names.push_back(option.long_name);
    }
    return names;
}

// Each engine's option lands right after the one it follows, those that follow the same option in
// the engines' order, one that follows another engine option after that one; none is lost.
TEST(RunOptionTable, EngineOptionsArePlacedAfterTheOptionTheyFollow) {
    const RunOption general[] = {{.long_name = "--a"}, {.long_name = "--b"}, {.long_name = "--c"}};
    const run::EngineRow* rows[] = {&first, &second};
    std::vector<RunOption> table = with_engine_options<run::Options>(general, rows);
    EXPECT_EQ(long_names(table),
              (std::vector<std::string_view>{"--a", "--two-a", "--b", "--one-b", "--one-b-after",
                                             "--two-b", "--c"}));
    EXPECT_EQ(table[1].value_name, "V"); // the engine's entry, whole
    EXPECT_EQ(table[1].help, "h");
    const RunOption without_b[] = {{.long_name = "--a"}, {.long_name = "--c"}};
    EXPECT_THROW(with_engine_options<run::Options>(without_b, rows), std::logic_error);
}

bool owned(std::string_view name) {
    for (const run::EngineRow* row : engines::table()) {
        for (const run::EngineOption& option : row->options) {
            if (option.name == name) {
                return true;
            }
        }
    }
    return false;
}

// The real table: every engine's option is an entry of `colossalai run` once, right after the one
// it follows, and reads into the engine's own part of the options.
TEST(RunOptionTable, EveryEnginesOptionIsOneEntryAfterTheOneItFollows) {
    std::span<const RunOption> table = run_option_table();
    for (const run::EngineRow* row : engines::table()) {
        for (const run::EngineOption& option : row->options) {
            if (!option.run.offered()) {
                continue; // check's alone
            }
            SCOPED_TRACE(option.name);
            auto entry = std::find_if(table.begin(), table.end(), [&](const RunOption& entry) {
                return entry.long_name == option.name;
            });
            ASSERT_NE(entry, table.end());
            EXPECT_EQ(find_long_option(option.name), &*entry);
            EXPECT_EQ(entry->engine_option, &option);
            EXPECT_EQ(entry->value_name, option.run.value_name);
            // Between it and the one it follows, only engines' options (of the same option).
            auto before = entry;
            while (before != table.begin() && std::prev(before)->long_name != option.run.follows) {
                --before;
                EXPECT_TRUE(owned(before->long_name)) << before->long_name;
            }
            EXPECT_NE(before, table.begin()) << "not after " << option.run.follows;
            EXPECT_EQ(std::count_if(
                          table.begin(), table.end(),
                          [&](const RunOption& other) { return other.long_name == option.name; }),
                      1);
        }
    }
}

} // namespace
} // namespace colossalai::cli
