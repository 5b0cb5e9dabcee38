#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/exec/spawn.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/fd.hpp"
#include "colossalai/util/integer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

namespace colossalai::exec {

namespace {

// Whether /proc/NAME/stat (NAME read from the open /proc directory `proc`) describes a live
// process, not a zombie, of group `pgid`. Raw system calls (getdents64, openat, read, close) and
// hand parsing only: the guardian is a fork of a possibly threaded process and never execs (an
// util::Fd would do, but raw calls keep what runs here visibly async-signal-safe).
bool live_member(int proc, const char* name, pid_t pgid) {
    char path[64];
    size_t length = 0;
    for (; name[length] != '\0'; ++length) {
        if (name[length] < '0' || name[length] > '9' || length > 20) {
            return false; // not a process
        }
        path[length] = name[length];
    }
    const char suffix[] = "/stat";
    for (size_t i = 0; i < sizeof suffix; ++i) {
        path[length + i] = suffix[i];
    }
    int fd = ::openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false; // gone since the directory was read
    }
    // "PID (COMM) STATE PPID PGRP ...": COMM may hold anything, so parse after its last ')'.
    char text[512];
    ssize_t n = ::read(fd, text, sizeof text);
    ::close(fd);
    ssize_t paren = n - 1;
    while (paren >= 0 && text[paren] != ')') {
        --paren;
    }
    if (paren < 0 || paren + 4 >= n || text[paren + 2] == 'Z') {
        return false;
    }
    ssize_t at = paren + 4; // past ") S "
    while (at < n && text[at] != ' ') {
        ++at; // PPID
    }
    std::string_view pgrp(text, static_cast<std::size_t>(n));
    pgrp.remove_prefix(std::min(pgrp.size(), static_cast<std::size_t>(at + 1)));
    return util::parse_integer_prefix<long>(pgrp).value_or(0) == pgid;
}

// Whether group `pgid` still has a live process. kill(-pgid, 0) alone is not enough: it also
// finds zombies, which an init that does not reap (PID 1 of many containers) keeps forever, and
// the guardian would wait the whole grace for nothing. When /proc cannot be read, it trusts
// kill(), the grace still bounds the wait.
bool group_alive(pid_t pgid) {
    if (::kill(-pgid, 0) != 0) {
        return false;
    }
    int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0) {
        return true;
    }
    alignas(dirent64) char entries[4096];
    bool alive = false;
    ssize_t n = 0;
    while (!alive && (n = ::getdents64(proc, entries, sizeof entries)) > 0) {
        for (ssize_t offset = 0; offset < n && !alive;) {
            const auto* entry = reinterpret_cast<const dirent64*>(entries + offset);
            alive = live_member(proc, entry->d_name, pgid);
            offset += entry->d_reclen;
        }
    }
    ::close(proc);
    return alive || n < 0;
}

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
        if (!group_alive(pgid)) {
            ::_exit(0);
        }
    }
    ::kill(-pgid, SIGKILL);
    ::_exit(0);
}

} // namespace

Guardian spawn_guardian(pid_t pgid, std::chrono::milliseconds grace) {
    std::optional<util::Pipe> watch = util::open_pipe(O_CLOEXEC);
    if (!watch) {
        throw fatal_error("pipe: {}", std::strerror(errno));
    }
    pid_t pid = ::fork(); // no PR_SET_PDEATHSIG: its work starts when the launcher is gone
    if (pid < 0) {
        throw fatal_error("fork: {}", std::strerror(errno));
    }
    if (pid == 0) {
        // Its own group: a signal to the launcher's group (Ctrl-C, kill -- -PGID) must not take
        // the guardian with it.
        ::setpgid(0, 0);
        for (int signo : signal_policy::ignored_by_guardian) {
            ::signal(signo, SIG_IGN);
        }
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        // Hold nothing but the watch pipe: another guardian's pipe or a job's output pipe kept
        // open here would hide the EOF they wait for. Raw dup2 and closefrom: this child never
        // returns, so the owners above are never destroyed here.
        if (watch->read.get() != 3) {
            ::dup2(watch->read.get(), 3);
        }
        int null_fd = ::open("/dev/null", O_RDWR);
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        ::closefrom(4);
        guard(3, pgid, static_cast<long>(grace.count()));
    }
    return Guardian{pid, std::move(watch->write)};
}

} // namespace colossalai::exec
