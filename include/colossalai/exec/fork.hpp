#pragma once

#include <sys/types.h>

namespace colossalai::exec {

// fork() for a child that must not outlive this process: the child gets `death_signal` when this
// process dies, even by SIGKILL (PR_SET_PDEATHSIG). A death between fork() and prctl() would
// leave the request unanswered, so the child compares getppid() with this process's pid, taken
// before the fork, and exits at once with 128 + `death_signal` (as if the signal had come) when
// its parent is already gone. Returns what fork() does: 0 in the child, the child's pid here, -1
// with errno on failure. The child may only make async-signal-safe calls until it execs or
// _exits (another thread may have held a lock at the fork); it must never return from the
// caller's function.
pid_t fork_child(int death_signal);

} // namespace colossalai::exec
