#include "../usage_message.hpp"

#include "colossalai/cli/app.hpp"
#include "colossalai/config.hpp"

#include <gtest/gtest.h>

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
    EXPECT_EQ(out.str(), std::string("colossalai ") + config::version + "\n");
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
