#pragma once

// Private to the ssh module: a node's session on its way between the launcher's thread and the
// workers that connect it and start its command.

#include "session.hpp"

#include "colossalai/job/node_command.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/fd.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace colossalai::ssh {

// A worker fills in the connect result and writes `event_fd`; the launcher's thread, woken by it,
// takes the result. The mutex hands the session over, so that one thread at a time drives it.
class Attempt {
public:
    Attempt();
    Attempt(const Attempt&) = delete;
    Attempt& operator=(const Attempt&) = delete;

    // Worker side: connect to the node, log in and start the node wrapper (`input`:
    // wrapper_input(), see start_command); its preflight answer is the launcher's loop's to
    // read. Skips the work once cancelled.
    void connect(const job::NodeCommand& node, const ConnectSettings& settings,
                 const std::string& input);

    // Launcher side. take(): after `event_fd` became readable, the session, or an empty pointer
    // and `error` set; std::nullopt when there was no event.
    struct ConnectResult {
        SessionPtr session;
        std::string error;
    };
    std::optional<ConnectResult> take();

    int event_fd() const { return m_event_fd.get(); }
    void cancel() { m_cancelled = true; }

private:
    void post(SessionPtr session, std::string error);

    std::mutex m_mutex;
    SessionPtr m_session;
    std::string m_error;
    std::atomic<bool> m_cancelled{false};
    util::Fd m_event_fd;
    TimingClock::time_point m_created = TimingClock::now(); // when the connection was queued
};

} // namespace colossalai::ssh
