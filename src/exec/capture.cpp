#include "colossalai/exec/capture.hpp"

#include "colossalai/exec/signals.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

extern char** environ;

namespace colossalai::exec {

namespace {

using Clock = std::chrono::steady_clock;

// The process groups of the captures running now, as many as run (a check over many Python
// environments, or callers on many threads). Spawning and tracking happen under the mutex, so
// the signal thread of kill_captures_on_signal() never misses a child that was just started.
struct Running {
    pid_t pid = -1;
    Stop stop = Stop::kill;
};
std::vector<Running> running;
std::mutex running_mutex;

// Called with the mutex held.
void track(pid_t pid, Stop stop) {
    running.push_back({pid, stop});
}

void untrack(pid_t pid) {
    std::lock_guard lock(running_mutex);
    std::erase_if(running, [pid](const Running& each) { return each.pid == pid; });
}

// Waits for a stop signal on `channel`, kills the captures' groups, then dies of the signal.
// The lock is held to the end: a capture whose child dies here cannot return (untrack() waits
// for it), so the check cannot go on to finish and exit normally before the signal ends it.
void signal_thread(SignalChannel* channel) {
    std::vector<int> signals;
    while (signals.empty()) {
        pollfd readable{channel->fd(), POLLIN, 0};
        ::poll(&readable, 1, -1);
        signals = channel->take();
    }
    const int signo = signals.front();
    std::lock_guard lock(running_mutex);
    for (const Running& each : running) {
        if (each.pid > 0) {
            ::kill(-each.pid, each.stop == Stop::terminate ? SIGTERM : SIGKILL);
        }
    }
    ::signal(signo, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signo);
    ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
    ::raise(signo); // this thread no longer blocks it: the default action ends the process
    ::_exit(128 + signo);
}

std::vector<char*> to_c_array(const std::vector<std::string>& words) {
    std::vector<char*> array;
    array.reserve(words.size() + 1);
    for (const std::string& word : words) {
        array.push_back(const_cast<char*>(word.c_str()));
    }
    array.push_back(nullptr);
    return array;
}

// Waits for `pid` until the deadline; stops its process group as `stop` says when the deadline
// passes.
void reap(pid_t pid, Clock::time_point deadline, Stop stop, CaptureResult& result) {
    ChildWait end = wait_child(pid, deadline);
    if (end.state == ChildWait::State::running) {
        result.timed_out = true;
        if (stop == Stop::terminate) {
            ::kill(-pid, SIGTERM);
            end = wait_child(pid, Clock::now() + terminate_grace);
        }
    }
    if (end.state == ChildWait::State::running) {
        ::kill(-pid, SIGKILL);
        end = wait_child(pid, Clock::time_point::max());
    }
    if (end.state == ChildWait::State::lost) {
        return;
    }
    if (WIFEXITED(end.status)) {
        result.exit_code = WEXITSTATUS(end.status);
    } else if (WIFSIGNALED(end.status)) {
        result.signal = WTERMSIG(end.status);
    }
    // Whatever the program left behind in its group must not outlive the probe.
    ::kill(-pid, SIGKILL);
}

} // namespace

CaptureResult capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const std::optional<std::vector<std::string>>& env, std::size_t max_output,
                      CaptureMode mode) {
    CaptureResult result;
    if (argv.empty()) {
        result.error = "empty command";
        return result;
    }
    std::optional<util::Pipe> output = util::open_pipe(O_CLOEXEC);
    if (!output) {
        result.error = std::strerror(errno);
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output->write.get(), STDOUT_FILENO);
    if (mode.stderr_to == Stderr::merge) {
        posix_spawn_file_actions_adddup2(&actions, output->write.get(), STDERR_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t no_signals;
    sigemptyset(&no_signals);
    posix_spawnattr_setsigmask(&attributes, &no_signals);
    sigset_t default_signals;
    sigemptyset(&default_signals);
    sigaddset(&default_signals, SIGPIPE);
    sigaddset(&default_signals, SIGINT);
    sigaddset(&default_signals, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &default_signals);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> c_argv = to_c_array(argv);
    std::vector<char*> c_env = env ? to_c_array(*env) : std::vector<char*>{};
    pid_t pid = -1;
    std::unique_lock tracking(running_mutex);
    running.reserve(running.size() + 1); // so that tracking a started child cannot throw
    int rc = ::posix_spawnp(&pid, c_argv[0], &actions, &attributes, c_argv.data(),
                            env ? c_env.data() : environ);
    if (rc == 0) {
        track(pid, mode.stop);
    }
    tracking.unlock();
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    output->write.reset();
    if (rc != 0) {
        result.error = std::strerror(rc);
        return result;
    }
    result.started = true;

    const Clock::time_point deadline = Clock::now() + timeout;
    char buffer[8192];
    while (true) {
        pollfd pfd{output->read.get(), POLLIN, 0};
        int ready = ::poll(&pfd, 1, util::poll_timeout_ms(deadline));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            break; // deadline: reap() kills the group
        }
        ssize_t n = ::read(output->read.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        size_t room = max_output - std::min(max_output, result.output.size());
        result.output.append(buffer, std::min(room, static_cast<size_t>(n)));
    }
    output->read.reset();
    reap(pid, deadline, mode.stop, result);
    untrack(pid);
    return result;
}

void kill_captures_on_signal() {
    // The channel blocks the signals here, before the caller starts other threads (they inherit
    // the mask); one thread reads them: unlike a handler, it can take the mutex. SIGPIPE keeps
    // its default: `colossalai check -i | head -1` ends as any command would.
    static std::once_flag once; // one signal thread, however often it is called
    std::call_once(once, [] {
        // Never destroyed: the thread reads it until the process ends.
        auto* channel = new SignalChannel(SignalChannelSettings{.ignore_sigpipe = false});
        std::thread(signal_thread, channel).detach();
    });
}

} // namespace colossalai::exec
