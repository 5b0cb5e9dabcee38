#include "colossalai/exec/wait.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace colossalai::exec {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

pid_t child_that(int exit_code, bool hang) {
    pid_t pid = ::fork();
    if (pid == 0) {
        while (hang) {
            ::pause();
        }
        ::_exit(exit_code);
    }
    return pid;
}

TEST(WaitChild, ReapsAChildThatEndedAndGivesItsStatus) {
    pid_t pid = child_that(3, false);
    ASSERT_GT(pid, 0);
    ChildWait end = wait_child(pid, Clock::time_point::max());
    EXPECT_EQ(end.state, ChildWait::State::ended);
    EXPECT_TRUE(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 3);
    EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1); // reaped already
}

TEST(WaitChild, SaysRunningWhenTheDeadlineComesFirst) {
    pid_t pid = child_that(0, true);
    ASSERT_GT(pid, 0);
    EXPECT_EQ(wait_child(pid, Clock::now() + 20ms).state, ChildWait::State::running);
    EXPECT_EQ(wait_child(pid, Clock::now() - 1s).state, ChildWait::State::running);
    ::kill(pid, SIGKILL);
    ChildWait end = wait_child(pid, Clock::time_point::max());
    EXPECT_EQ(end.state, ChildWait::State::ended);
    EXPECT_TRUE(WIFSIGNALED(end.status) && WTERMSIG(end.status) == SIGKILL);
}

TEST(WaitChild, ReturnsRunningWhenTheInterruptDescriptorIsReadable) {
    pid_t pid = child_that(0, true);
    ASSERT_GT(pid, 0);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_EQ(::write(fds[1], "x", 1), 1);
    // Without the readable descriptor this would wait for good.
    EXPECT_EQ(wait_child(pid, Clock::time_point::max(), fds[0]).state, ChildWait::State::running);
    ::close(fds[0]);
    ::close(fds[1]);
    ::kill(pid, SIGKILL);
    EXPECT_EQ(wait_child(pid, Clock::time_point::max()).state, ChildWait::State::ended);
}

TEST(WaitChild, SaysLostForAProcessThatIsNoChild) {
    EXPECT_EQ(wait_child(::getppid(), Clock::time_point::max()).state, ChildWait::State::lost);
}

} // namespace
} // namespace colossalai::exec
