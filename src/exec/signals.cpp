#include "colossalai/exec/signals.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/util/error.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colossalai::exec {

sigset_t stop_signals() {
    return signal_policy::as_set(signal_policy::stop);
}

namespace {

// The stop signals that were ignored when the launcher started (nohup): read once by
// SignalChannel, before any thread, and only read after that (between fork and exec).
sigset_t g_ignored_at_start;

bool ignored(int signo) {
    struct sigaction current {};
    return ::sigaction(signo, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

} // namespace

SignalChannel::SignalChannel(SignalChannelSettings settings)
    : m_ignores_sigpipe(settings.ignore_sigpipe) {
    sigset_t set = stop_signals();
    sigemptyset(&g_ignored_at_start);
    for (int signo : signal_policy::stop) {
        if (ignored(signo)) {
            sigdelset(&set, signo);
            sigaddset(&g_ignored_at_start, signo);
        }
    }
    if (settings.job_control && !ignored(SIGTSTP)) {
        sigaddset(&set, SIGTSTP);
    }
    m_set = set;
    if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) {
        throw fatal_error("cannot block signals: {}", std::strerror(errno));
    }
    m_fd.reset(::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
    if (!m_fd) {
        throw fatal_error("signalfd: {}", std::strerror(errno));
    }
    if (m_ignores_sigpipe) {
        ::signal(SIGPIPE, SIG_IGN);
    }
}

SignalChannel::~SignalChannel() {
    m_fd.reset();
    if (m_ignores_sigpipe) {
        ::signal(SIGPIPE, SIG_DFL);
    }
    ::sigprocmask(SIG_UNBLOCK, &m_set, nullptr);
}

std::vector<int> SignalChannel::take() {
    std::vector<int> signals;
    signalfd_siginfo info{};
    while (true) {
        ssize_t n = ::read(m_fd.get(), &info, sizeof info);
        if (n == static_cast<ssize_t>(sizeof info)) {
            signals.push_back(static_cast<int>(info.ssi_signo));
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        return signals;
    }
}

void reset_signals_for_exec() noexcept {
    for (int signo : signal_policy::default_for_jobs) {
        if (sigismember(&g_ignored_at_start, signo) != 1) {
            ::signal(signo, SIG_DFL);
        }
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

} // namespace colossalai::exec
