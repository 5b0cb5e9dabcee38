#include "usage_message.hpp"

#include "colossalai/cli/app.hpp"
#include "colossalai/commit.hpp"
#include "colossalai/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

// The top level of the command tree: version, help, missing and unknown commands.
namespace colossalai::cli {
namespace {

using Words = std::vector<std::string>;

TEST(App, VersionAlone) {
    std::ostringstream out;
    Command command = parse({"colossalai", "--version"}, out);
    ASSERT_TRUE(std::holds_alternative<Done>(command));
    EXPECT_EQ(std::get<Done>(command).exit_code, 0);
    // The release, the commit, then libssh (its version, or why it cannot be loaded).
    std::string expected_start =
        std::string("colossalai ") + config::version + "\ncommit " + config::commit + "\nlibssh ";
    std::string text = out.str();
    EXPECT_EQ(text.substr(0, expected_start.size()), expected_start) << text;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
}

TEST(App, GenerateWritesAManPageOrTheCompletionTable) {
    std::ostringstream out;
    Command command = parse({"colossalai", "--generate=colossalai-run.1"}, out);
    ASSERT_TRUE(std::holds_alternative<Done>(command));
    EXPECT_EQ(std::get<Done>(command).exit_code, 0);
    EXPECT_NE(out.str().find(".TH COLOSSALAI\\-RUN 1 "), std::string::npos) << out.str();
    std::ostringstream table;
    parse({"colossalai", "--generate", "completion-table"}, table);
    EXPECT_NE(table.str().find("option\trun\t--nproc_per_node,--nproc-per-node\ttext\t"),
              std::string::npos)
        << table.str();
}

TEST(App, GenerateIsHiddenAndTakesNoCommand) {
    std::ostringstream help;
    parse({"colossalai", "--help"}, help);
    EXPECT_EQ(help.str().find("--generate"), std::string::npos) << help.str();
    std::ostringstream out;
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "--generate=bogus"}, out);
              }),
              "--generate: unknown output 'bogus' (one of colossalai.1, colossalai-check.1, "
              "colossalai-run.1, completion-table)");
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "--generate=colossalai.1", "check", "-i"}, out);
              }),
              "--generate takes no command");
    EXPECT_EQ(out.str(), "");
}

TEST(App, VersionWithAnythingElseIsAUsageError) {
    std::ostringstream out;
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "--version", "--bogus"}, out);
              }),
              "The following argument was not expected: --bogus");
    EXPECT_EQ(test::usage_message([&] {
                  parse({"colossalai", "--version", "check", "-i"}, out);
              }),
              "--version takes no command");
    EXPECT_EQ(out.str(), "");
}

TEST(App, HelpListsTheCommands) {
    std::ostringstream out;
    Command command = parse({"colossalai", "--help"}, out);
    ASSERT_TRUE(std::holds_alternative<Done>(command));
    EXPECT_EQ(std::get<Done>(command).exit_code, 0);
    EXPECT_NE(out.str().find("--version"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("check"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("run"), std::string::npos) << out.str();
}

TEST(App, NoCommandIsAUsageError) {
    std::ostringstream out;
    std::string message = test::usage_message([&] { parse({"colossalai"}, out); });
    EXPECT_EQ(message.substr(0, message.find('\n')),
              "no command given (expected 'check' or 'run')");
}

} // namespace
} // namespace colossalai::cli
