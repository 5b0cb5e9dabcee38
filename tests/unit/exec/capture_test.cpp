#include "files.hpp"
#include "process.hpp"

#include "colossalai/exec/capture.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace colossalai::exec {
namespace {

using namespace std::chrono_literals;

TEST(Capture, CollectsStdoutAndTheExitCode) {
    CaptureResult result = capture({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
    ASSERT_TRUE(result.started) << result.error;
    EXPECT_EQ(result.output, "out\n");
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_FALSE(result.timed_out);
}

TEST(Capture, MergesStderrIntoTheOutputInTheOrderWritten) {
    CaptureResult result = capture({"sh", "-c", "echo out; echo err >&2; echo out2"}, 10s,
                                   std::nullopt, 1024, {.stderr_to = Stderr::merge});
    ASSERT_TRUE(result.started) << result.error;
    EXPECT_EQ(result.output, "out\nerr\nout2\n");
    EXPECT_EQ(result.exit_code, 0);
}

// Stop::terminate: at the deadline the group gets SIGTERM, and a program that tidies up on it
// (srun cancelling its step) ends as it chooses; no SIGKILL before the grace.
TEST(Capture, TerminateSendsSigtermAtTheDeadline) {
    CaptureResult result = capture({"sh", "-c",
                                    "trap 'exit 7' TERM; echo started; "
                                    "while :; do sleep 0.05; done"},
                                   500ms, std::nullopt, 1024, {.stop = Stop::terminate});
    ASSERT_TRUE(result.started) << result.error;
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.output, "started\n");
    EXPECT_EQ(result.exit_code, 7);
    EXPECT_EQ(result.signal, 0);

    CaptureResult killed =
        capture({"sh", "-c", "trap 'exit 7' TERM; while :; do sleep 0.05; done"}, 500ms);
    EXPECT_TRUE(killed.timed_out);
    EXPECT_EQ(killed.signal, SIGKILL);
}

// More captures at once than the table of running probes once had slots (16): a stop signal
// reaches every one of their process groups, the last started too, before the process dies of
// it. Each capture's program records its PID, then sleeps until killed.
TEST(CaptureSignal, AStopSignalKillsEveryRunningCaptureHoweverMany) {
    constexpr int count = 40;
    test::TempDir dir("colossalai-capture");
    auto recorded = [&](int i) { return dir / ("pid." + std::to_string(i)); };
    // A child process of its own (the signal ends it), waited for by its PID: the captures'
    // programs inherit nothing of this test's to wait on.
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        StopCapturesOnSignal stop_captures;
        std::vector<std::thread> threads;
        for (int i = 0; i < count; ++i) {
            std::string file = recorded(i).string();
            threads.emplace_back([file] {
                capture({"sh", "-c", "echo $$ > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"; exec sleep 300",
                         file},
                        std::chrono::minutes(10));
            });
        }
        bool all = test::eventually(
            [&] {
                for (int i = 0; i < count; ++i) {
                    if (!std::filesystem::exists(recorded(i))) {
                        return false;
                    }
                }
                return true;
            },
            60s);
        ::kill(::getpid(), all ? SIGTERM : SIGUSR1);
        std::this_thread::sleep_for(60s);
        ::_exit(99);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "wait status " << status;
    std::vector<pid_t> pids;
    for (int i = 0; i < count; ++i) {
        std::string text = test::read_file(recorded(i));
        ASSERT_FALSE(text.empty()) << "capture " << i << " never started";
        pids.push_back(static_cast<pid_t>(std::stol(text)));
    }
    test::eventually(
        [&] {
            for (pid_t pid : pids) {
                if (test::process_alive(pid)) {
                    return false;
                }
            }
            return true;
        },
        10s);
    for (int i = 0; i < count; ++i) {
        pid_t pid = pids[static_cast<size_t>(i)];
        EXPECT_FALSE(test::process_alive(pid)) << "capture " << i << " was not killed";
        if (test::process_alive(pid)) { // what the failure left: each its group's leader
            ::kill(-pid, SIGKILL);
        }
    }
}

// A stop signal that comes while no wait watches (the command between its probes) is not lost:
// it ends the process, by that signal, when the scope closes.
TEST(CaptureSignal, ASignalBetweenWaitsEndsTheProcessWhenTheScopeCloses) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        {
            StopCapturesOnSignal stop_captures;
            ::kill(::getpid(), SIGHUP); // blocked: it waits on the channel
            if (stop_signal_fd() < 0) {
                ::_exit(3);
            }
        }
        ::_exit(0); // reached only if the signal was lost
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP) << "wait status " << status;
}

TEST(CaptureSignal, WithoutAScopeNothingIsWatched) {
    EXPECT_EQ(stop_signal_fd(), -1);
    act_on_stop_signal(); // returns: there is no channel to read
}

} // namespace
} // namespace colossalai::exec
