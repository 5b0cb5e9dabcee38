#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

namespace colossalai::exec {

namespace {

// The guardian's whole life, in async-signal-safe calls only (it is forked from a process that
// may have other threads, and never execs).
[[noreturn]] void guard(int watch_fd, pid_t pgid, long grace_ms) {
    char byte;
    while (true) {
        ssize_t n = ::read(watch_fd, &byte, 1);
        if (n == 0 || (n < 0 && errno != EINTR)) {
            break; // EOF: the job ended, or the launcher is gone
        }
    }
    if (::kill(-pgid, SIGTERM) != 0) {
        ::_exit(0); // nothing left of the job
    }
    const long step_ms = 20;
    for (long waited = 0; waited < grace_ms; waited += step_ms) {
        struct timespec pause {
            0, step_ms * 1000 * 1000
        };
        ::nanosleep(&pause, nullptr);
        if (::kill(-pgid, 0) != 0) {
            ::_exit(0);
        }
    }
    ::kill(-pgid, SIGKILL);
    ::_exit(0);
}

} // namespace

std::pair<pid_t, int> spawn_guardian(pid_t pgid, std::chrono::milliseconds grace) {
    int watch[2];
    if (::pipe2(watch, O_CLOEXEC) != 0) {
        throw runtime_error("pipe: {}", std::strerror(errno));
    }
    pid_t pid = ::fork();
    if (pid < 0) {
        int error = errno;
        ::close(watch[0]);
        ::close(watch[1]);
        throw runtime_error("fork: {}", std::strerror(error));
    }
    if (pid == 0) {
        // Its own group: a signal to the launcher's group (Ctrl-C, kill -- -PGID) must not take
        // the guardian with it.
        ::setpgid(0, 0);
        for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
            ::signal(signo, SIG_IGN);
        }
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        // Hold nothing but the watch pipe: another guardian's pipe or a job's output pipe kept
        // open here would hide the EOF they wait for.
        if (watch[0] != 3) {
            ::dup2(watch[0], 3);
        }
        int null_fd = ::open("/dev/null", O_RDWR);
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        ::closefrom(4);
        guard(3, pgid, static_cast<long>(grace.count()));
    }
    ::close(watch[0]);
    return {pid, watch[1]};
}

} // namespace colossalai::exec
