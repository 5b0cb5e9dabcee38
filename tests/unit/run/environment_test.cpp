#include "colossalai/run/environment.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

TEST(FindVariable, TheFirstValueOfTheNameAsGetenvFindsIt) {
    std::vector<std::string> entries = {"PATHS=no", "PATH=/bin", "EMPTY=", "PATH=/usr/bin", "BARE"};
    EXPECT_EQ(find_variable(entries, "PATH"), "/bin");
    EXPECT_EQ(find_variable(entries, "EMPTY"), "");
    EXPECT_EQ(find_variable(entries, "BARE"), std::nullopt);
    EXPECT_EQ(find_variable(entries, "PAT"), std::nullopt);
}

TEST(WithLauncherDefaults, AddsPythonUnbufferedOnlyWhenTheUserDidNotSetIt) {
    EXPECT_EQ(with_launcher_defaults({"PATH=/bin"}),
              (std::vector<std::string>{"PATH=/bin", "PYTHONUNBUFFERED=1"}));
    // Set to anything, even empty or 0, it is the user's decision (setenv(..., 0) did the same).
    for (std::string entry : {"PYTHONUNBUFFERED=0", "PYTHONUNBUFFERED="}) {
        std::vector<std::string> entries = {entry, "PATH=/bin"};
        EXPECT_EQ(with_launcher_defaults(entries), entries) << entry;
    }
    // A name that merely starts the same does not count.
    EXPECT_EQ(with_launcher_defaults({"PYTHONUNBUFFERED_X=0"}),
              (std::vector<std::string>{"PYTHONUNBUFFERED_X=0", "PYTHONUNBUFFERED=1"}));
}

TEST(FilterEnvironment, KeepsOneLineVariablesWithIdentifierNamesSorted) {
    std::vector<std::string> entries = {
        "PATH=/usr/bin:/bin",
        "CUDA_VISIBLE_DEVICES=0,1",
        "EMPTY=",
        "WITH_EQUALS=a=b=c",
        "QUOTES=it's \"$(x)\"",
        "MULTI=line1\nline2",
        "CR=windows\r",
        "BASH_FUNC_f%%=() { :; }",
        "1BAD=x",
        "has-dash=x",
        "NO_EQUALS",
        "=value",
        "_private=ok",
        "NCCL_DEBUG=INFO",
        "PATH=/second/wins/not",
    };
    std::vector<EnvVar> expected = {
        {"CUDA_VISIBLE_DEVICES", "0,1"},
        {"EMPTY", ""},
        {"NCCL_DEBUG", "INFO"},
        {"PATH", "/usr/bin:/bin"},
        {"QUOTES", "it's \"$(x)\""},
        {"WITH_EQUALS", "a=b=c"},
        {"_private", "ok"},
    };
    EXPECT_EQ(filter_environment(entries), expected);
}

TEST(FilterEnvironment, DropsWhatDescribesThisMachineOrSession) {
    std::vector<std::string> session = {
        "HOSTNAME",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "_",
        "SSH_CLIENT",
        "SSH_CONNECTION",
        "SSH_TTY",
        "SSH_AUTH_SOCK",
        "DISPLAY",
        "BASH",
        "BASHOPTS",
        "BASHPID",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_LINENO",
        "BASH_SOURCE",
        "BASH_SUBSHELL",
        "BASH_VERSINFO",
        "BASH_VERSION",
        "EUID",
        "GROUPS",
        "PPID",
        "SHELLOPTS",
        "UID",
        "HOME",
        "USER",
        "LOGNAME",
        "MAIL",
        "SHELL",
        "XDG_RUNTIME_DIR",
        "XDG_SESSION_ID",
        "XDG_SESSION_TYPE",
    };
    std::vector<std::string> entries;
    for (const std::string& name : session) {
        EXPECT_TRUE(is_session_variable(name)) << name;
        entries.push_back(name + "=x");
    }
    entries.emplace_back("KEEP=1");
    EXPECT_EQ(filter_environment(entries), (std::vector<EnvVar>{{"KEEP", "1"}}));
}

TEST(FilterEnvironment, KeepsJobVariablesThatMerelyLookSimilar) {
    for (const char* name :
         {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "TERM", "LANG", "SSH", "MY_SSH_KEY", "HOME_DIR",
          "USERNAME_X", "XDG_CONFIG_HOME", "BASH_ENV_X", "__", "TMPDIR"}) {
        EXPECT_FALSE(is_session_variable(name)) << name;
    }
}

// Issue #24: what Slurm sets per task, per node or per step describes the launcher's own place
// in an allocation; what it sets per job is the same everywhere.

} // namespace
} // namespace colossalai::run
