#pragma once

#include "colossalai/util/fd.hpp"

#include <signal.h>

#include <vector>

namespace colossalai::exec {

// The signals that stop a run or a check: SIGINT, SIGTERM, SIGHUP.
sigset_t stop_signals();

// What a SignalChannel takes over besides the stop signals.
struct SignalChannelSettings {
    bool job_control = false;   // SIGTSTP too (`run`: Ctrl-Z stops the nodes first)
    bool ignore_sigpipe = true; // `run`: a closed stdout drops output, it does not kill the job
};

// The one way `run` and `check` receive their signals: stop_signals() (and SIGTSTP with
// `job_control`) as a file descriptor, read by the launcher's poll() loop, or by the check's
// probes' waits (StopCapturesOnSignal). The constructor blocks them for the whole process —
// call it before any thread starts, so every thread inherits the mask — and ignores SIGPIPE
// when asked; the destructor restores both. A stop signal that is ignored when the process
// starts (nohup, `trap '' HUP`) stays ignored: it is not read, so never passed on, and the jobs
// start with it ignored too.
class SignalChannel {
public:
    explicit SignalChannel(SignalChannelSettings settings = {});
    ~SignalChannel();
    SignalChannel(const SignalChannel&) = delete;
    SignalChannel& operator=(const SignalChannel&) = delete;

    int fd() const { return m_fd.get(); }
    // The signals that arrived since the last call, in order (non-blocking).
    std::vector<int> take();

private:
    util::Fd m_fd;
    sigset_t m_set{};
    bool m_ignores_sigpipe = false;
};

// Between fork and exec: unblocks every signal and restores default dispositions for the ones
// the launcher changes, so that jobs start as if run from a shell (a stop signal that was
// ignored when the launcher started stays ignored). Async-signal-safe.
void reset_signals_for_exec() noexcept;

} // namespace colossalai::exec
