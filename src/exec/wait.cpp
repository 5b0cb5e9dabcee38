#include "colossalai/exec/wait.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/duration.hpp"

#include <poll.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <thread>

namespace colossalai::exec {

namespace {

using Clock = std::chrono::steady_clock;

} // namespace

ChildWait wait_child(pid_t pid, Clock::time_point deadline) {
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
        if (pidfd) {
            pollfd ended{pidfd.get(), POLLIN, 0};
            ::poll(&ended, 1, util::poll_timeout_ms(deadline) + 1);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(1)); // no pidfd: an old kernel
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
