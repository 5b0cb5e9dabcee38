#pragma once

#include "colossalai/exec/wait.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::exec {

class SignalChannel;

struct CaptureResult {
    bool started = false;   // false: the program could not be executed (see `error`)
    bool timed_out = false; // the whole process group was killed at the deadline
    int exit_code = -1;     // valid when the program exited normally
    int signal = 0;         // non-zero when it died of a signal
    std::string output;     // its stdout (and stderr, merged), at most max_output bytes
    std::string error;      // why it could not be started, one line
};

// Where a captured program's stderr goes.
enum class Stderr {
    discard, // /dev/null
    merge,   // the same pipe as stdout: `output` holds both, in the order they were written
};

// How a capture's process group is stopped, at its deadline or at a stop signal
// (StopCapturesOnSignal).
enum class Stop {
    kill,      // SIGKILL
    terminate, // SIGTERM, for a program that must tidy up elsewhere (srun cancels its step): at
               // the deadline SIGKILL follows if it has not ended within terminate_grace; at a
               // stop signal the caller dies at once, the program left to end by itself
};
inline constexpr std::chrono::milliseconds terminate_grace{15000};

struct CaptureMode {
    Stderr stderr_to = Stderr::discard;
    Stop stop = Stop::kill;
};

// Runs `argv` (argv[0] is a path or a name looked up in PATH) with stdin from /dev/null and
// captures its stdout (and its stderr with Stderr::merge). The child runs in its own process
// group; at `timeout` the whole group is stopped as `mode.stop` says (SIGKILL by default), so a
// hung program (or a wrapper script and its children) never hangs the caller. `env` replaces the
// environment when given.
CaptureResult capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const std::optional<std::vector<std::string>>& env = std::nullopt,
                      std::size_t max_output = 1024 * 1024, CaptureMode mode = {});

// capture()'s children run in process groups of their own, out of reach of the terminal's Ctrl-C.
// While a StopCapturesOnSignal exists, the stop signals (exec/signal_policy.hpp; those not
// ignored at start) first SIGKILL the groups of the captures still running (SIGTERM those of
// Stop::terminate), then take their default action (the program dies of the signal, as it would
// have). No thread waits for them: every capture's poll() watches the signals' descriptor
// beside its pipe, and so may any other wait of the command (stop_signal_fd,
// act_on_stop_signal); a signal that comes while nothing watches takes its default action when
// the scope ends. For short-lived commands whose only children are captures (and children that
// die with them); create it before any other thread starts (it blocks the signals, and threads
// inherit the mask) and destroy it after they ended. One at a time.
class StopCapturesOnSignal {
public:
    StopCapturesOnSignal();
    ~StopCapturesOnSignal();
    StopCapturesOnSignal(const StopCapturesOnSignal&) = delete;
    StopCapturesOnSignal& operator=(const StopCapturesOnSignal&) = delete;

private:
    std::unique_ptr<SignalChannel> m_channel;
};

// The descriptor that is readable when a stop signal came while a StopCapturesOnSignal exists:
// a wait adds it to its poll() and then calls act_on_stop_signal(). -1 when none exists.
int stop_signal_fd();

// When a stop signal came: stops the captures' groups and ends the process by the signal (never
// returns). Otherwise (none came, another thread took it) returns at once.
void act_on_stop_signal();

// wait_child() that acts on a stop signal while it waits (act_on_stop_signal).
ChildWait wait_child_acting_on_stop(pid_t pid, std::chrono::steady_clock::time_point deadline);

} // namespace colossalai::exec
