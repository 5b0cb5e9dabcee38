#pragma once

#include "colossalai/util/fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::exec {

// A job started as the leader of its own process group.
struct SpawnedJob {
    pid_t pid = -1;  // == its process group id
    util::Fd out_fd; // read end of its stdout (non-blocking, close-on-exec)
    util::Fd err_fd; // read end of its stderr
    util::Fd in_fd;  // write end of its stdin (non-blocking, close-on-exec), with `stdin_pipe`
};

// What a job is started with: `argv[0]` is resolved in the PATH of `environment` (as execvp
// would), stdin is /dev/null (a pipe with `stdin_pipe`: the launcher writes the program's input,
// as to the system ssh client), the working directory is `working_directory`.
struct SpawnRequest {
    std::vector<std::string> argv;
    std::vector<std::string> environment; // NAME=value
    std::string working_directory;
    bool stdin_pipe = false;
};

// Forks (fork_child) and execs the job in its own process group, with PR_SET_PDEATHSIG = SIGTERM
// so that it is told to stop even when the launcher dies by SIGKILL. Throws colossalai::Error with
// a one-line reason when it cannot be executed (not found, not executable, bad directory).
SpawnedJob spawn_job(const SpawnRequest& request);

// A descriptor that poll() reports readable once the child `pid` has ended (pidfd_open, close
// on exec), or none where the kernel has none (before 5.3): the caller then polls waitpid().
util::Fd open_pidfd(pid_t pid);

// Resolves `name` like execvp in the PATH found in `environment` (or the default PATH).
// Returns an empty string when nothing executable is found.
std::string resolve_executable(const std::string& name,
                               const std::vector<std::string>& environment);

// Starts a guardian for process group `pgid`: a small forked process (no exec) that waits for
// EOF on the returned pipe — the launcher closes it when the job ended, or the kernel does when
// the launcher dies, even by SIGKILL — then sends SIGTERM to the group, waits up to `grace`
// for it to empty (zombies, which a non-reaping init keeps forever, do not count), and SIGKILLs
// what is left. It ignores the terminal's signals so that a
// Ctrl-C meant for the launcher does not stop it. It is forked without PR_SET_PDEATHSIG: its work
// starts when the launcher is gone.
struct Guardian {
    pid_t pid = -1;
    util::Fd watch_fd; // the pipe's write end: close it to start the guardian's work
};
Guardian spawn_guardian(pid_t pgid, std::chrono::milliseconds grace);

} // namespace colossalai::exec
