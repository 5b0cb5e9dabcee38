#include "colossalai/exec/wait.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/duration.hpp"

#include <poll.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace colossalai::exec {

namespace {

using Clock = std::chrono::steady_clock;

} // namespace

ChildWait wait_child(pid_t pid, Clock::time_point deadline, int interrupt_fd) {
    util::Fd pidfd = open_pidfd(pid);
    while (true) {
        int status = 0;
        pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            return {ChildWait::State::ended, status};
        }
        if (done < 0 && errno != EINTR) {
            return {ChildWait::State::lost, 0};
        }
        if (Clock::now() >= deadline) {
            return {ChildWait::State::running, 0};
        }
        // poll() skips a negative descriptor: without a pidfd (an old kernel) it looks at the
        // child every millisecond.
        pollfd watched[2] = {{interrupt_fd, POLLIN, 0}, {pidfd ? pidfd.get() : -1, POLLIN, 0}};
        int timeout = pidfd ? util::poll_timeout_ms(deadline) + 1 : 1;
        if (::poll(watched, 2, timeout) > 0 && (watched[0].revents & POLLIN) != 0) {
            return {ChildWait::State::running, 0};
        }
    }
}

std::optional<int> reap_child(pid_t pid, bool block) {
    int status = 0;
    pid_t done;
    do {
        done = ::waitpid(pid, &status, block ? 0 : WNOHANG);
    } while (done < 0 && errno == EINTR);
    return done == pid ? std::optional<int>(status) : std::nullopt;
}

} // namespace colossalai::exec
