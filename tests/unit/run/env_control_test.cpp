#include "usage_message.hpp"

#include "colossalai/run/env_control.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

// --- the env file ---

TEST(ParseEnvFile, ReadsNameValueLinesAndSkipsCommentsAndBlanks) {
    std::string text = "# a comment\n"
                       "\n"
                       "NCCL_DEBUG=INFO\n"
                       "  \t# an indented comment\n"
                       "   INDENTED=yes\n"
                       "EMPTY=\n"
                       "EQUALS=a=b=c\n"
                       "QUOTED=\"kept as is\" # not a comment\n"
                       "CRLF=windows\r\n"
                       "NCCL_DEBUG=WARN\n"
                       "LAST=no newline";
    std::vector<EnvSetting> expected = {
        {"CRLF", "windows", "f:9"},
        {"EMPTY", "", "f:6"},
        {"EQUALS", "a=b=c", "f:7"},
        {"INDENTED", "yes", "f:5"},
        {"LAST", "no newline", "f:11"},
        {"NCCL_DEBUG", "WARN", "f:10"}, // a later line wins
        {"QUOTED", "\"kept as is\" # not a comment", "f:8"},
    };
    EXPECT_EQ(parse_env_file(text, "f"), expected);
    EXPECT_TRUE(parse_env_file("", "f").empty());
    EXPECT_TRUE(parse_env_file("\n\n# only comments\n", "f").empty());
}

TEST(ParseEnvFile, RefusesABadLineNamingFileAndLine) {
    struct Case {
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"A=1\nNO_EQUALS\n", "env:2: expected NAME=VALUE, found 'NO_EQUALS'"},
        {"A =1\n", "env:1: 'A ' is not a variable name (letters, digits and _, not starting "
                   "with a digit)"},
        // The words docs/run.md shows for it.
        {"export A=1\n", "env:1: expected NAME=VALUE, found 'export'"},
        {"B=2\n\texport\tA\n", "env:2: expected NAME=VALUE, found 'export'"},
        {"exported A=1\n", "env:1: 'exported A' is not a variable name (letters, digits and _, "
                           "not starting with a digit)"},
        {"=1\n", "env:1: '' is not a variable name (letters, digits and _, not starting with a "
                 "digit)"},
        {"1A=1\n", "env:1: '1A' is not a variable name (letters, digits and _, not starting "
                   "with a digit)"},
        {"# c\nPPID=1\n", "env:2: 'PPID' is a read-only shell variable; it cannot be passed to "
                          "a node"},
        {"UID=0", "env:1: 'UID' is a read-only shell variable; it cannot be passed to a node"},
        {std::string("A=x\0y\n", 6), "env:1: the value of 'A' holds a NUL byte"},
        {"A=x\ry\n", "env:1: the value of 'A' holds a line break, which cannot be passed to a "
                     "node"},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(test::usage_message([&] { parse_env_file(c.text, "env"); }), c.message) << c.text;
    }
}

// --- -x ---

TEST(ParseEnvExport, ReadsTheNameAndTheValueAfterTheFirstEquals) {
    EXPECT_EQ(parse_env_export("A=1"), (EnvExport{"A", "1"}));
    EXPECT_EQ(parse_env_export("A="), (EnvExport{"A", ""}));
    EXPECT_EQ(parse_env_export("A=b=c"), (EnvExport{"A", "b=c"}));
    EXPECT_EQ(parse_env_export("PATH"), (EnvExport{"PATH", std::nullopt}));
}

TEST(ParseEnvExport, RefusesBadNamesAndValues) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "-x: '' is not a variable name (letters, digits and _, not starting with a digit)"},
        {"=1", "-x: '' is not a variable name (letters, digits and _, not starting with a "
               "digit)"},
        {"A-B=1", "-x: 'A-B' is not a variable name (letters, digits and _, not starting with "
                  "a digit)"},
        {"EUID=0", "-x: 'EUID' is a read-only shell variable; it cannot be passed to a node"},
        {"IFS", "-x: 'IFS' is a read-only shell variable; it cannot be passed to a node"},
        {"A=x\ny", "-x: the value of 'A' holds a line break, which cannot be passed to a node"},
        {"A=x\ry", "-x: the value of 'A' holds a line break, which cannot be passed to a node"},
    };
    for (const auto& [word, message] : cases) {
        EXPECT_EQ(test::usage_message([&, &word = word] { parse_env_export(word); }), message)
            << word;
    }
}

TEST(ResolveExport, SetsAValueOrForwardsTheLaunchersOwn) {
    Words launcher = {"PATH=/bin", "HOME=/home/me", "PATHX=no", "EMPTY="};
    EXPECT_EQ(resolve_export({"A", "1"}, launcher), (EnvSetting{"A", "1", "-x"}));
    EXPECT_EQ(resolve_export({"A", ""}, launcher), (EnvSetting{"A", "", "-x"}));
    EXPECT_EQ(resolve_export({"PATH", std::nullopt}, launcher), (EnvSetting{"PATH", "/bin", "-x"}));
    // A session variable is left out unless named: then it is passed.
    EXPECT_EQ(resolve_export({"HOME", std::nullopt}, launcher),
              (EnvSetting{"HOME", "/home/me", "-x"}));
    EXPECT_EQ(resolve_export({"EMPTY", std::nullopt}, launcher), (EnvSetting{"EMPTY", "", "-x"}));
}

TEST(ResolveExport, RefusesALaunchersValueWithALineBreakAndAnUnsetVariable) {
    Words launcher = {"MULTI=a\nb", "PATH=/bin"};
    EXPECT_EQ(test::usage_message([&] {
                  resolve_export({"MULTI", std::nullopt}, launcher);
              }),
              "-x: the value of 'MULTI' holds a line break, which cannot be passed to a node");
    EXPECT_EQ(test::usage_message([&] {
                  resolve_export({"PAT", std::nullopt}, launcher);
              }),
              "-x: 'PAT' is not set in the launcher's environment (use -x PAT=VALUE)");
}

// --- --env-exclude ---

TEST(ParseEnvPatterns, ReadsNamesAndPrefixes) {
    EXPECT_EQ(parse_env_patterns("NCCL_SOCKET_IFNAME"),
              (std::vector<EnvPattern>{{"NCCL_SOCKET_IFNAME", false}}));
    EXPECT_EQ(
        parse_env_patterns("NCCL_*,GLOO_SOCKET_IFNAME,*"),
        (std::vector<EnvPattern>{{"NCCL_*", true}, {"GLOO_SOCKET_IFNAME", false}, {"*", true}}));
}

TEST(ParseEnvPatterns, RefusesEmptyAndBadPatterns) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "--env-exclude '': an empty pattern"},
        {"A,,B", "--env-exclude 'A,,B': an empty pattern"},
        {"A,", "--env-exclude 'A,': an empty pattern"},
        {"A B", "--env-exclude 'A B': not a variable name or NAME* pattern"},
        {"*A", "--env-exclude '*A': not a variable name or NAME* pattern"},
        {"A**", "--env-exclude 'A**': not a variable name or NAME* pattern"},
        {"1*", "--env-exclude '1*': not a variable name or NAME* pattern"},
        {"N?", "--env-exclude 'N?': not a variable name or NAME* pattern"},
    };
    for (const auto& [text, message] : cases) {
        EXPECT_EQ(test::usage_message([&, &text = text] { parse_env_patterns(text); }), message)
            << text;
    }
}

TEST(EnvPattern, MatchesANameOrAPrefix) {
    EnvPattern name{"NCCL_DEBUG", false};
    EXPECT_TRUE(name.matches("NCCL_DEBUG"));
    EXPECT_FALSE(name.matches("NCCL_DEBUG_FILE"));
    EXPECT_FALSE(name.matches("NCCL"));
    EnvPattern prefix{"NCCL_*", true};
    EXPECT_TRUE(prefix.matches("NCCL_DEBUG"));
    EXPECT_TRUE(prefix.matches("NCCL_"));
    EXPECT_FALSE(prefix.matches("NCCL"));
    EXPECT_FALSE(prefix.matches("XNCCL_DEBUG"));
    EXPECT_TRUE((EnvPattern{"*", true}).matches("ANY"));
}

// --- the precedence rule: launcher < env files < --env-exclude < -x ---

TEST(PlanEnvironment, EachStepOverridesTheOnesBeforeIt) {
    Words entries = {"NCCL_SOCKET_IFNAME=eth0", "NCCL_DEBUG=INFO", "PATH=/bin", "KEEP=1",
                     "HOME=/home/me"};
    std::vector<EnvVar> launcher = {
        {"KEEP", "1"}, {"NCCL_DEBUG", "INFO"}, {"NCCL_SOCKET_IFNAME", "eth0"}, {"PATH", "/bin"}};
    EnvRequest request;
    request.files = {{"a", "FROM_FILE=a\nPATH=/a\nNCCL_IB_HCA=mlx5\n"}, {"b", "FROM_FILE=b\n"}};
    request.exclude = {{"NCCL_*", true}};
    request.exports = {{"NCCL_DEBUG", "WARN"}, {"PATH", "/x"}, {"HOME", std::nullopt}};
    EnvironmentChanges changes = plan_environment(request, entries, launcher);
    std::vector<EnvSetting> set = {
        {"FROM_FILE", "b", "b:1"},    // the later file wins
        {"HOME", "/home/me", "-x"},   // forwarded
        {"NCCL_DEBUG", "WARN", "-x"}, // -x wins over --env-exclude
        {"PATH", "/x", "-x"},         // -x wins over the file
    };                                // NCCL_IB_HCA: the file's value is excluded
    EXPECT_EQ(changes.set, set);
    EXPECT_EQ(changes.dropped, (Words{"NCCL_SOCKET_IFNAME"}));
    EXPECT_EQ(changes.patterns, (Words{"NCCL_*"}));

    EXPECT_EQ(remote_environment(launcher, changes), (std::vector<EnvVar>{{"FROM_FILE", "b"},
                                                                          {"HOME", "/home/me"},
                                                                          {"KEEP", "1"},
                                                                          {"NCCL_DEBUG", "WARN"},
                                                                          {"PATH", "/x"}}));
}

TEST(PlanEnvironment, WithoutFlagsChangesNothing) {
    std::vector<EnvVar> launcher = {{"A", "1"}};
    EnvironmentChanges changes = plan_environment({}, {"A=1"}, launcher);
    EXPECT_TRUE(changes.empty());
    EXPECT_TRUE(changes.dropped.empty());
    EXPECT_EQ(remote_environment(launcher, changes), launcher);
}

TEST(PlanEnvironment, RefusesTheFirstBadValue) {
    EnvRequest request;
    request.files = {{"good", "A=1\n"}, {"bad", "\n\nB\n"}};
    EXPECT_EQ(test::usage_message([&] { plan_environment(request, {}, {}); }),
              "bad:3: expected NAME=VALUE, found 'B'");
    request.files.clear();
    request.exports = {{"A", "1"}, {"UNSET", std::nullopt}};
    EXPECT_EQ(test::usage_message([&] { plan_environment(request, {}, {}); }),
              "-x: 'UNSET' is not set in the launcher's environment (use -x UNSET=VALUE)");
}

} // namespace
} // namespace colossalai::run
