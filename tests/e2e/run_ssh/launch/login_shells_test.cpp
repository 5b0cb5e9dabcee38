// A user's login shell over SSH: sshd runs the exec request through it, and shells read a
// command line differently (fish takes `\\` and `\'` inside single quotes, tcsh and csh refuse a
// line break inside quotes). Each test host has a user per login shell (cluster.sh: sh-bash ...
// sh-false, from Debian's packages); the recording fake torchrun shows what arrived.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

// The login shells of cluster.sh's users, and where Debian installs them.
struct LoginShell {
    std::string name;
    std::filesystem::path path;
};

const std::vector<LoginShell> shells = {
    {"bash", "/bin/bash"},   {"dash", "/bin/dash"},     {"zsh", "/usr/bin/zsh"},
    {"ksh", "/usr/bin/ksh"}, {"fish", "/usr/bin/fish"}, {"tcsh", "/usr/bin/tcsh"},
    {"csh", "/usr/bin/csh"},
};

// Words that every shell reads in its own way somewhere: quotes, backslashes, expansions,
// history, globs, braces, comments, blanks, UTF-8 and bytes that are not, a line break, and
// lines that close a block (the end of the script the node reads).
const Words hostile_words = {
    "--match",     "step\\d+", "it's",      "say \"hi\"", "\\",       "\\'",        "a\\\\b",
    "$HOME",       "${x}",     "`id`",      "$(id)",      "!!",       "!1",         "100%",
    "%s",          "~",        "~root",     "*",          "?",        "[a]",        "{a,b}",
    "#no comment", "a b",      "tab\there", "ünïcødé ✓",  "\xff\xfe", "two\nlines", "\n.\n",
    "}",           "\n}\n",    ".",         "",           ";",        "|",          "&",
    ">",           "<",        "(",         ")",          "'\"'\"'"};

// The same for a value in the environment (no line break: -x refuses one).
const std::string hostile_value = "it's \"q\" \\ \\' $HOME `id` !! % ~ * {a,b} #c \t ü";

class LoginShellsOverSsh : public SharedSshCluster<2>,
                           public ::testing::WithParamInterface<LoginShell> {
protected:
    JobDir m_job;
    FakeTorchrun m_fake;
};

// The script's arguments, -x values, env-file values and the working directory reach torchrun
// byte for byte, whatever the user's login shell.
TEST_P(LoginShellsOverSsh, EveryWordArrivesExactly) {
    const LoginShell& shell = GetParam();
    ASSERT_TRUE(std::filesystem::exists(shell.path))
        << shell.path << " is missing: install " << shell.name << " (.ci/packages, group test)";
    // The working directory too: the wrapper's preflight changes to it on the node.
    std::filesystem::path cwd = m_job.path() / "it's \"q\" \\ $HOME `id` !! {a,b} #c \u00fc";
    std::filesystem::create_directories(cwd);
    write_file(cwd / "hostile.env", "FROM_FILE=" + hostile_value + "\n");
    write_file(cwd / "train.py", "");
    Words args = {
        "-H", "sh-" + shell.name + "@node1", "--nproc_per_node", "1", "--env-file", "hostile.env",
        "-x", "FROM_X=" + hostile_value,     "train.py"};
    args.insert(args.end(), hostile_words.begin(), hostile_words.end());
    RunResult result = run_fake_job(cluster(), m_fake, args, cwd);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(read_file(m_fake.recorded(0, "cwd")), cwd.string() + "\n");
    Words argv = m_fake.argv(0);
    auto script = std::find(argv.begin(), argv.end(), "train.py");
    ASSERT_NE(script, argv.end()) << "no script in the recorded command";
    EXPECT_EQ(Words(script + 1, argv.end()), hostile_words);
    std::string env = read_file(m_fake.recorded(0, "env"));
    EXPECT_NE(env.find(std::string("\0FROM_X=", 8) + hostile_value + '\0'), std::string::npos);
    EXPECT_NE(env.find(std::string("\0FROM_FILE=", 11) + hostile_value + '\0'), std::string::npos);
    // The node's own login, not the launcher's.
    EXPECT_NE(env.find(std::string("\0SHELL=", 7) + shell.path.string() + '\0'), std::string::npos);
}

std::string shell_name(const ::testing::TestParamInfo<LoginShell>& info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Shells, LoginShellsOverSsh, ::testing::ValuesIn(shells), shell_name);

class NoLoginShellOverSsh : public SharedSshCluster<3> {
protected:
    JobDir m_job;
    FakeTorchrun m_fake;
};

// A user whose login shell runs no command: one line names the node, the login and what the
// shell said (or that it said nothing); nothing starts anywhere, exit 255.
TEST_F(NoLoginShellOverSsh, ALoginShellThatRunsNothingIsNamedAndNothingStarts) {
    RunResult result = run_fake_job(
        cluster(), m_fake,
        {"-H", "node3,sh-nologin@node1,sh-false@node2", "--nproc_per_node", "1", "train.py"},
        m_job.path());
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_TRUE(m_fake.ranks_started().empty());
    EXPECT_TRUE(has_line(result.err, "sh-nologin@node1: failure (the login shell of sh-nologin did "
                                     "not run the launcher's command (exit status 1; it printed: "
                                     "This account is currently not available.))"))
        << result.err;
    EXPECT_TRUE(has_line(result.err, "sh-false@node2: failure (the login shell of sh-false did not "
                                     "run the launcher's command (exit status 1, nothing printed: "
                                     "a login shell such as /usr/sbin/nologin or /bin/false runs "
                                     "no command))"))
        << result.err;
    EXPECT_TRUE(has_line(result.err, "node3: failure (not started, stopped by the launcher)"))
        << result.err;
}

} // namespace
} // namespace colossalai::test
