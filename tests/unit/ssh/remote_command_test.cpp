#include "support.hpp"

#include "colossalai/run/quote.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>

// The node wrapper, run by a local /bin/sh exactly as a remote login shell would run it.
namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using test::RunResult;

run::NodeCommand node(std::vector<std::string> argv, std::string cwd = "/tmp") {
    run::NodeCommand command;
    command.host = "node1";
    command.argv = std::move(argv);
    command.working_directory = std::move(cwd);
    command.environment = {{"COLOSSALAI_TEST_VALUE", "a 'b' $HOME `id` $(id) \\ ;"},
                           {"PATH", "/usr/bin:/bin"}};
    return command;
}

// Runs the remote command with `feeder` (a shell snippet) writing its stdin.
RunResult run_wrapper(const run::NodeCommand& command, const std::string& feeder,
                      std::chrono::milliseconds grace = 2000ms) {
    std::string script = "(" + feeder + ") | /bin/sh -c " +
                         run::shell_quote(remote_command(command, grace)) + "; echo \"status=$?\"";
    test::RunOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"},
                                                     {"BLOCK", environment_block(command)}};
    options.timeout = 20000ms;
    return test::run({"/bin/sh", "-c", script}, options);
}

TEST(RemoteCommand, ArgumentsEnvironmentAndDirectoryArriveIntact) {
    std::vector<std::string> hostile{
        "a b",     "$(touch /tmp/colossalai-pwned)", "`id`", "it's", "new\nline", "semi;colon", "",
        "\xff\xfe"};
    std::vector<std::string> argv{"/bin/sh", "-c",
                                  "printf '[%s]\\n' \"$@\"; printf '%s\\n' "
                                  "\"$COLOSSALAI_TEST_VALUE\"; pwd",
                                  "sh"};
    argv.insert(argv.end(), hostile.begin(), hostile.end());
    RunResult result = run_wrapper(node(argv, "/usr"), "printf %s \"$BLOCK\"");
    std::string expected;
    for (const std::string& word : hostile) {
        expected += "[" + word + "]\n";
    }
    expected += "a 'b' $HOME `id` $(id) \\ ;\n/usr\nstatus=0\n";
    EXPECT_EQ(result.out, expected);
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, ExitStatusComesBack) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "exit 3"}), "printf %s \"$BLOCK\"");
    EXPECT_EQ(result.out, "status=3\n");
}

TEST(RemoteCommand, AJobKilledBySignalKillsTheWrapperWithIt) {
    // The outer shell reports 128+N when its child died of signal N.
    RunResult result =
        run_wrapper(node({"/bin/sh", "-c", "kill -s SEGV $$"}), "printf %s \"$BLOCK\"");
    EXPECT_EQ(result.out, "status=" + std::to_string(128 + SIGSEGV) + "\n");
}

TEST(RemoteCommand, ControlLinesSignalTheJobsGroup) {
    run::NodeCommand command = node({"/bin/sh", "-c", "echo started; sleep 30; echo never"});
    RunResult result = run_wrapper(command, "printf %s \"$BLOCK\"; sleep 0.5; echo TERM; sleep 2");
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGTERM) + "\n");
}

TEST(RemoteCommand, EndOfInputStopsTheWholeJob) {
    std::string marker = "colossalai-wrapper-eof-" + std::to_string(::getpid());
    // A child in the background that outlives its parent's TERM unless the group is stopped.
    run::NodeCommand command =
        node({"/bin/sh", "-c", "sh -c 'sleep 30; : " + marker + "' & echo started; wait"});
    RunResult result = run_wrapper(command, "printf %s \"$BLOCK\"; sleep 1");
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGTERM) + "\n");
    EXPECT_TRUE(
        test::eventually([&] { return test::processes_with_marker(marker).empty(); }, 3000ms));
}

TEST(RemoteCommand, KillsAJobThatIgnoresSigtermAfterTheGrace) {
    run::NodeCommand command =
        node({"/bin/sh", "-c", "trap '' TERM; echo started; sleep 30; sleep 30"});
    RunResult result = run_wrapper(command, "printf %s \"$BLOCK\"; sleep 1", 300ms);
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGKILL) + "\n");
}

TEST(RemoteCommand, StartsNothingWithoutTheWholeEnvironment) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "echo started"}), "echo export A=1");
    EXPECT_EQ(result.out, "status=125\n");
}

TEST(RemoteCommand, ReportsAMissingDirectory) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "echo started"}, "/nonexistent-dir"),
                                   "printf %s \"$BLOCK\"");
    EXPECT_EQ(result.out, "status=126\n");
    EXPECT_NE(result.err.find("/nonexistent-dir"), std::string::npos) << result.err;
}

TEST(RemoteCommand, ShapeOfTheCommandLine) {
    std::string text = remote_command(node({"torchrun", "--nproc_per_node=2", "train.py"}), 1500ms);
    EXPECT_EQ(text.rfind("exec /bin/sh -c '", 0), 0u);
    EXPECT_NE(text.find("' colossalai-node 15 /tmp torchrun --nproc_per_node=2 train.py"),
              std::string::npos)
        << text;
    EXPECT_EQ(node_wrapper().find('\''), std::string_view::npos);
}

TEST(RemoteCommand, EnvironmentBlockQuotesEveryValue) {
    EXPECT_EQ(environment_block(node({})),
              "export COLOSSALAI_TEST_VALUE='a '\\''b'\\'' $HOME `id` $(id) \\ ;'\n"
              "export PATH=/usr/bin:/bin\n.\n");
}

TEST(RemoteCommand, ControlLines) {
    EXPECT_EQ(control_line(SIGINT), "INT\n");
    EXPECT_EQ(control_line(SIGTERM), "TERM\n");
    EXPECT_EQ(control_line(SIGKILL), "KILL\n");
    EXPECT_EQ(control_line(SIGHUP), "HUP\n");
    EXPECT_EQ(control_line(SIGCHLD), std::nullopt);
}

} // namespace
} // namespace colossalai::ssh
