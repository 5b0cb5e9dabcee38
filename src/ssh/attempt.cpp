#include "attempt.hpp"

#include "colossalai/util/error.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace colossalai::ssh {

namespace {
// A stopped node's summary line reads "not started, stopped by the launcher".
constexpr const char* not_started = "not started";
} // namespace

Attempt::Attempt() : m_event_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (!m_event_fd) {
        throw fatal_error("eventfd: {}", std::strerror(errno));
    }
}

void Attempt::connect(const job::NodeCommand& node, const ConnectSettings& settings,
                      const std::string& input) {
    if (m_cancelled) {
        post(nullptr, not_started);
        return;
    }
    try {
        TimingClock::time_point picked = TimingClock::now();
        SessionPtr session = connect_session(node, settings);
        session->timing.marks[static_cast<std::size_t>(Mark::queued)] = m_created;
        session->timing.marks[static_cast<std::size_t>(Mark::picked)] = picked;
        if (m_cancelled) {
            post(nullptr, not_started); // dropping the session logs out: nothing ran
            return;
        }
        start_command(*session, input);
        // The wrapper's preflight answer is read by the launcher's loop (node_session.cpp): the
        // worker moves on to the next host while this one runs its checks.
        post(std::move(session), "");
    } catch (const std::exception& e) {
        post(nullptr, e.what());
    }
}

std::optional<Attempt::ConnectResult> Attempt::take() {
    uint64_t count = 0;
    if (::read(m_event_fd.get(), &count, sizeof count) != sizeof count) {
        return std::nullopt;
    }
    std::lock_guard lock(m_mutex);
    return ConnectResult{std::move(m_session), std::move(m_error)};
}

void Attempt::post(SessionPtr session, std::string error) {
    {
        std::lock_guard lock(m_mutex);
        m_session = std::move(session);
        m_error = std::move(error);
    }
    uint64_t one = 1;
    ssize_t ignored = ::write(m_event_fd.get(), &one, sizeof one);
    (void)ignored;
}

} // namespace colossalai::ssh
