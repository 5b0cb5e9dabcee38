#include "colossalai/exec/capture.hpp"

#include "colossalai/exec/signal_policy.hpp"
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

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

extern char** environ;

namespace colossalai::exec {

namespace {

using Clock = std::chrono::steady_clock;

// The process groups of the captures running now, as many as run (a check over many Python
// environments, or callers on many threads). Spawning and tracking happen under the mutex, so
// the thread that acts on a stop signal never misses a child that was just started.
struct Running {
    pid_t pid = -1;
    Stop stop = Stop::kill;
};
std::vector<Running> running;
std::mutex running_mutex;

// The StopCapturesOnSignal's channel; null when none exists. Set before the threads that read it
// start and cleared after they ended.
std::atomic<SignalChannel*> stop_channel{nullptr};

// Called with the mutex held.
void track(pid_t pid, Stop stop) {
    running.push_back({pid, stop});
}

void untrack(pid_t pid) {
    std::lock_guard lock(running_mutex);
    std::erase_if(running, [pid](const Running& each) { return each.pid == pid; });
}

// Kills the captures' groups, then dies of `signo`. The lock is held to the end: a capture whose
// child dies here cannot return (untrack() waits for it), so the command cannot go on to finish
// and exit normally before the signal ends it.
[[noreturn]] void stop_captures_and_die(int signo) {
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
    ChildWait end = wait_child_acting_on_stop(pid, deadline);
    if (end.state == ChildWait::State::running) {
        result.timed_out = true;
        if (stop == Stop::terminate) {
            ::kill(-pid, SIGTERM);
            end = wait_child_acting_on_stop(pid, Clock::now() + terminate_grace);
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

// A started child's pid, or why none started (an error number).
struct Spawned {
    pid_t pid = -1;
    int error = 0;
};

// Starts `argv` in a process group of its own, its stdout (and stderr with Stderr::merge) on
// `output`, and tracks it (for a stop signal).
Spawned spawn_tracked(const std::vector<std::string>& argv,
                      const std::optional<std::vector<std::string>>& env, int output,
                      CaptureMode mode) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO);
    if (mode.stderr_to == Stderr::merge) {
        posix_spawn_file_actions_adddup2(&actions, output, STDERR_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t no_signals;
    sigemptyset(&no_signals);
    posix_spawnattr_setsigmask(&attributes, &no_signals);
    sigset_t default_signals = signal_policy::as_set(signal_policy::default_for_probes);
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
    if (rc != 0) {
        return {.error = rc};
    }
    return {.pid = pid};
}

// Reads `output` until its end or the deadline, keeping at most `max_output` bytes; acts on a
// stop signal meanwhile.
void read_output(int output, Clock::time_point deadline, std::size_t max_output,
                 std::string& into) {
    char buffer[8192];
    while (true) {
        pollfd watched[2] = {{output, POLLIN, 0}, {stop_signal_fd(), POLLIN, 0}};
        int ready = ::poll(watched, 2, util::poll_timeout_ms(deadline));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            return; // deadline: reap() kills the group
        }
        if ((watched[1].revents & POLLIN) != 0) {
            act_on_stop_signal();
        }
        if (watched[0].revents == 0) {
            continue;
        }
        ssize_t n = ::read(output, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        size_t room = max_output - std::min(max_output, into.size());
        into.append(buffer, std::min(room, static_cast<size_t>(n)));
    }
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
    const Spawned spawned = spawn_tracked(argv, env, output->write.get(), mode);
    output->write.reset();
    if (spawned.error != 0) {
        result.error = std::strerror(spawned.error);
        return result;
    }
    const pid_t pid = spawned.pid;
    result.started = true;
    const Clock::time_point deadline = Clock::now() + timeout;
    read_output(output->read.get(), deadline, max_output, result.output);
    output->read.reset();
    reap(pid, deadline, mode.stop, result);
    untrack(pid);
    return result;
}

StopCapturesOnSignal::StopCapturesOnSignal()
    // SIGPIPE keeps its default: `colossalai check -i | head -1` ends as any command would.
    : m_channel(std::make_unique<SignalChannel>(SignalChannelSettings{.ignore_sigpipe = false})) {
    stop_channel.store(m_channel.get());
}

StopCapturesOnSignal::~StopCapturesOnSignal() {
    stop_channel.store(nullptr);
    // The channel unblocks the signals: one that came while nothing watched (the command was
    // between its waits) takes its default action now.
    m_channel.reset();
}

int stop_signal_fd() {
    SignalChannel* channel = stop_channel.load();
    return channel != nullptr ? channel->fd() : -1;
}

ChildWait wait_child_acting_on_stop(pid_t pid, Clock::time_point deadline) {
    while (true) {
        ChildWait end = wait_child(pid, deadline, stop_signal_fd());
        if (end.state != ChildWait::State::running || Clock::now() >= deadline) {
            return end;
        }
        act_on_stop_signal();
    }
}

void act_on_stop_signal() {
    SignalChannel* channel = stop_channel.load();
    if (channel == nullptr) {
        return;
    }
    std::vector<int> signals = channel->take();
    if (!signals.empty()) {
        stop_captures_and_die(signals.front());
    }
}

} // namespace colossalai::exec
