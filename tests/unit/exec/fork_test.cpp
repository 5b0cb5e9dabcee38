#include "process.hpp"

#include "colossalai/exec/fork.hpp"
#include "colossalai/util/fd.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace colossalai::exec {
namespace {

using test::wait_status;

TEST(ForkChild, TheChildAsksForTheDeathSignal) {
    for (int signo : {SIGTERM, SIGKILL}) {
        pid_t pid = fork_child(signo);
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int asked = 0;
            ::prctl(PR_GET_PDEATHSIG, &asked);
            ::_exit(asked);
        }
        int status = wait_status(pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), signo);
    }
}

// A middle process starts the child with fork_child() and exits: the child, adopted by this
// test (a subreaper), must die of the death signal instead of living on.
TEST(ForkChild, TheChildDiesOfTheSignalWhenItsParentDies) {
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    std::optional<util::Pipe> report = util::open_pipe(O_CLOEXEC);
    ASSERT_TRUE(report);
    pid_t middle = ::fork();
    ASSERT_GE(middle, 0);
    if (middle == 0) {
        // The middle exits only once the child said it runs (fork_child() has returned there):
        // a death before that would be the other case, the parent already gone.
        std::optional<util::Pipe> ready = util::open_pipe(O_CLOEXEC);
        pid_t child = ready ? fork_child(SIGTERM) : -1;
        if (child == 0) {
            char byte = 'r';
            if (::write(ready->write.get(), &byte, 1) == 1) {
                while (true) {
                    ::pause();
                }
            }
            ::_exit(1);
        }
        ready->write.reset();
        char byte = 0;
        bool running = child > 0 && ::read(ready->read.get(), &byte, 1) == 1;
        ssize_t written = ::write(report->write.get(), &child, sizeof child);
        ::_exit(running && written == sizeof child ? 0 : 1);
    }
    report->write.reset();
    pid_t child = -1;
    ASSERT_EQ(::read(report->read.get(), &child, sizeof child), static_cast<ssize_t>(sizeof child));
    EXPECT_EQ(WEXITSTATUS(wait_status(middle)), 0);
    int status = wait_status(child); // adopted by this process
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
}

} // namespace
} // namespace colossalai::exec
