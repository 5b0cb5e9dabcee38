#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::exec {

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
// (kill_captures_on_signal).
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
// After this call, SIGINT, SIGTERM and SIGHUP first SIGKILL the groups of the captures still
// running (SIGTERM those of Stop::terminate), then take their default action (the program dies of
// the signal, as it would have). For short-lived commands whose only children are captures; call it
// before any other thread starts (it blocks those signals and receives them on a thread of its
// own). Later calls do nothing.
void kill_captures_on_signal();

} // namespace colossalai::exec
