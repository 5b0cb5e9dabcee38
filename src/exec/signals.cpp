#include "colossalai/exec/signals.hpp"

#include "colossalai/util/error.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colossalai::exec {

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

SignalChannel::SignalChannel() {
    sigset_t set = stop_signals();
    if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) {
        throw runtime_error("cannot block signals: {}", std::strerror(errno));
    }
    m_fd = ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (m_fd < 0) {
        throw runtime_error("signalfd: {}", std::strerror(errno));
    }
    ::signal(SIGPIPE, SIG_IGN);
}

SignalChannel::~SignalChannel() {
    ::close(m_fd);
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t set = stop_signals();
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

std::vector<int> SignalChannel::take() {
    std::vector<int> signals;
    signalfd_siginfo info{};
    while (true) {
        ssize_t n = ::read(m_fd, &info, sizeof info);
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
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD}) {
        ::signal(signo, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

} // namespace colossalai::exec
