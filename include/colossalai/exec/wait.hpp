#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

namespace colossalai::exec {

// What wait_child() found out about a child.
struct ChildWait {
    enum class State {
        ended,   // it ended and was reaped: `status` is its wait status
        running, // the deadline came first
        lost,    // it cannot be waited for (not a child of this process, reaped elsewhere)
    };
    State state = State::running;
    int status = 0;
};

// Waits until the child `pid` ends or `deadline` passes, in poll() on its pidfd (open_pidfd);
// where the kernel has no pidfds (before 5.3) it polls waitpid() every millisecond instead.
// Reaps the child when it ended. std::chrono::steady_clock::time_point::max() waits for good.
// With `interrupt_fd` (not -1) it also returns, State::running, as soon as that descriptor is
// readable (a stop signal's signalfd), so that the caller may act on it first.
ChildWait wait_child(pid_t pid, std::chrono::steady_clock::time_point deadline,
                     int interrupt_fd = -1);

// waitpid() for the child `pid`, retried on EINTR; `block`: until it ends, else only if it has.
// Its wait status once it ended and was reaped here; nullopt while it runs (or when it cannot be
// waited for).
std::optional<int> reap_child(pid_t pid, bool block);

} // namespace colossalai::exec
