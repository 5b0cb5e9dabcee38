#include "process.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

namespace colossalai::exec {
namespace {

using namespace std::chrono_literals;
using test::eventually;
using test::wait_status;

std::string read_to_end(int fd) {
    std::string text;
    char buffer[4096];
    while (true) {
        pollfd pfd{fd, POLLIN, 0};
        ::poll(&pfd, 1, 5000);
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            text.append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || errno != EAGAIN) {
            return text;
        }
    }
}

bool group_exists(pid_t pgid) {
    return ::kill(-pgid, 0) == 0;
}

SpawnRequest shell(const std::string& script) {
    SpawnRequest request;
    request.argv = {"sh", "-c", script};
    request.environment = {"PATH=/usr/bin:/bin"};
    request.working_directory = "/";
    return request;
}

TEST(SpawnJob, RunsWithTheGivenEnvironmentDirectoryAndNoStdin) {
    SpawnRequest request = shell("echo \"$GREETING\"; pwd; cat; echo err >&2");
    request.environment.push_back("GREETING=hello world");
    request.working_directory = "/tmp";
    SpawnedJob job = spawn_job(request);
    EXPECT_EQ(read_to_end(job.out_fd.get()), "hello world\n/tmp\n");
    EXPECT_EQ(read_to_end(job.err_fd.get()), "err\n");
    int status = wait_status(job.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// The program gets stdin, stdout and stderr, and nothing of the launcher's own: only what the
// launcher itself inherited may pass through (a test runner's descriptors, say).
TEST(SpawnJob, HandsTheProgramOnlyItsStandardStreams) {
    const std::set<int> allowed = test::inheritable_fds();
    SpawnedJob job = spawn_job(shell("exec ls -l /proc/self/fd"));
    std::string listing = read_to_end(job.out_fd.get());
    int status = wait_status(job.pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_to_end(job.err_fd.get());
    EXPECT_EQ(test::leaked_fds(listing, allowed), "");
}

TEST(SpawnJob, LeadsItsOwnProcessGroup) {
    SpawnedJob job = spawn_job(shell("sleep 5"));
    EXPECT_EQ(::getpgid(job.pid), job.pid);
    EXPECT_NE(::getpgid(job.pid), ::getpgrp());
    ::kill(-job.pid, SIGKILL);
    wait_status(job.pid);
}

TEST(SpawnJob, StartsWithDefaultSignalHandling) {
    // The launcher ignores SIGPIPE and blocks SIGINT; its jobs must not inherit either.
    ::signal(SIGPIPE, SIG_IGN);
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGINT);
    ::sigprocmask(SIG_BLOCK, &blocked, nullptr);
    SpawnedJob job = spawn_job(shell("grep -E '^Sig(Blk|Ign)' /proc/self/status"));
    std::string status = read_to_end(job.out_fd.get());
    ::sigprocmask(SIG_UNBLOCK, &blocked, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    EXPECT_EQ(status, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
    wait_status(job.pid);
}

TEST(SpawnJob, ReportsACommandThatIsNotFound) {
    SpawnRequest request = shell("");
    request.argv = {"no-such-command-colossalai"};
    try {
        spawn_job(request);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "no-such-command-colossalai: command not found");
    }
}

TEST(SpawnJob, ReportsABadWorkingDirectory) {
    SpawnRequest request = shell("true");
    request.working_directory = "/nonexistent-colossalai";
    try {
        spawn_job(request);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "cannot change to directory /nonexistent-colossalai: No such file "
                               "or directory");
    }
}

TEST(ResolveExecutable, UsesThePathOfTheJobsEnvironment) {
    EXPECT_EQ(resolve_executable("sh", {"PATH=/nonexistent:/bin"}), "/bin/sh");
    EXPECT_EQ(resolve_executable("sh", {"PATH=/nonexistent"}), "");
    EXPECT_EQ(resolve_executable("/bin/sh", {}), "/bin/sh");
}

TEST(Guardian, StopsTheWholeGroupWhenItsPipeCloses) {
    // A job with a child of its own: both must go.
    SpawnedJob job = spawn_job(shell("sleep 30 & wait"));
    auto [guardian, watch_fd] = spawn_guardian(job.pid, 5000ms);
    ASSERT_TRUE(eventually([&] { return group_exists(job.pid); }, 1000ms));
    watch_fd.reset();
    int status = wait_status(job.pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    EXPECT_TRUE(eventually([&] { return !group_exists(job.pid); }, 3000ms));
    wait_status(guardian);
}

TEST(Guardian, KillsAGroupThatIgnoresSigtermAfterTheGrace) {
    SpawnedJob job = spawn_job(shell("trap '' TERM; echo ready; sleep 30; sleep 30"));
    char buffer[16];
    pollfd pfd{job.out_fd.get(), POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, 5000), 1);
    ASSERT_GT(::read(job.out_fd.get(), buffer, sizeof buffer), 0);
    auto [guardian, watch_fd] = spawn_guardian(job.pid, 200ms);
    watch_fd.reset();
    int status = wait_status(job.pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    wait_status(guardian);
    // The orphaned `sleep` is reaped by init a moment after its death.
    EXPECT_TRUE(eventually([&] { return !group_exists(job.pid); }, 3000ms));
}

TEST(Guardian, LeavesWhenOnlyZombiesAreLeftInTheGroup) {
    // The job's orphans come to this process, which reaps them only at the end: an init that
    // never reaps, as in many containers. kill(-pgid, 0) still finds the group then.
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    SpawnedJob job = spawn_job(shell("sleep 30 & echo $!; wait"));
    pollfd pfd{job.out_fd.get(), POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, 5000), 1);
    char buffer[32] = {};
    ASSERT_GT(::read(job.out_fd.get(), buffer, sizeof buffer - 1), 0);
    pid_t child = std::atoi(buffer);
    auto [guardian, watch_fd] = spawn_guardian(job.pid, 60000ms);
    watch_fd.reset();
    int status = wait_status(job.pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    // The `sleep` dies of the SIGTERM and stays a zombie: the guardian must not wait the grace.
    EXPECT_TRUE(eventually(
        [&, &guardian = guardian] { return ::waitpid(guardian, nullptr, WNOHANG) == guardian; },
        10000ms));
    EXPECT_TRUE(group_exists(job.pid)); // the zombie
    ::kill(guardian, SIGKILL);
    ::waitpid(guardian, nullptr, 0);
    wait_status(child);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST(Guardian, IgnoresTheTerminalsSignals) {
    SpawnedJob job = spawn_job(shell("sleep 30"));
    auto [guardian, watch_fd] = spawn_guardian(job.pid, 1000ms);
    std::this_thread::sleep_for(50ms);
    ::kill(guardian, SIGINT);
    ::kill(guardian, SIGHUP);
    ::kill(guardian, SIGTERM);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(::waitpid(guardian, nullptr, WNOHANG), 0); // still there
    EXPECT_TRUE(group_exists(job.pid));
    watch_fd.reset();
    wait_status(job.pid);
    wait_status(guardian);
}

} // namespace
} // namespace colossalai::exec
