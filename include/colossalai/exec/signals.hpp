#pragma once

#include <signal.h>

#include <vector>

namespace colossalai::exec {

// The signals that stop a run or a check: SIGINT, SIGTERM, SIGHUP.
sigset_t stop_signals();

// The launcher's signals (stop_signals()) as a file descriptor for its poll() loop.
// The constructor blocks them for the whole process — call it before any thread starts, so
// every thread inherits the mask — and ignores SIGPIPE; the destructor restores both.
class SignalChannel {
public:
    SignalChannel();
    ~SignalChannel();
    SignalChannel(const SignalChannel&) = delete;
    SignalChannel& operator=(const SignalChannel&) = delete;

    int fd() const { return m_fd; }
    // The signals that arrived since the last call, in order (non-blocking).
    std::vector<int> take();

private:
    int m_fd = -1;
};

// Between fork and exec: unblocks every signal and restores default dispositions for the ones
// the launcher changes, so that jobs start as if run from a shell. Async-signal-safe.
void reset_signals_for_exec() noexcept;

} // namespace colossalai::exec
