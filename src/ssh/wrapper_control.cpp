#include "wrapper_control.hpp"

#include "colossalai/ssh/remote_command.hpp"

#include <algorithm>
#include <utility>

namespace colossalai::ssh {

WrapperControl::WrapperControl(std::chrono::milliseconds heartbeat,
                               std::chrono::milliseconds silence_limit, std::string input)
    : m_outbox(std::move(input)), m_heartbeat(heartbeat), m_silence_limit(silence_limit) {}

void WrapperControl::go(job::Clock::time_point now) {
    m_next_heartbeat = now + m_heartbeat;
    m_outbox += go_line;
}

void WrapperControl::rendezvous() {
    m_outbox += rendezvous_line;
}

bool WrapperControl::relay(int signo) {
    std::optional<std::string> line = control_line(signo);
    if (line) {
        m_relayed.push_back(signo);
        m_outbox += *line;
    }
    return line.has_value();
}

void WrapperControl::pause() {
    m_outbox += pause_line;
}

bool WrapperControl::heartbeat(job::Clock::time_point now) {
    if (now < m_next_heartbeat) {
        return false;
    }
    m_next_heartbeat = now + m_heartbeat;
    if (!m_outbox.empty()) {
        return false;
    }
    m_outbox = "\n";
    return true;
}

job::Outcome WrapperControl::job_end(std::optional<int> status) const {
    if (!status) {
        return stopped_by_silence(m_silence_limit); // not the job's own end
    }
    if (std::optional<int> signo = relayed_signal(*status)) {
        return job::Outcome::killed(*signo);
    }
    return job::Outcome::exited(*status);
}

std::optional<int> WrapperControl::relayed_signal(int status) const {
    int signo = status - 128;
    bool sent = std::find(m_relayed.begin(), m_relayed.end(), signo) != m_relayed.end();
    return status > 128 && status < 193 && sent ? std::optional<int>(signo) : std::nullopt;
}

job::Outcome abandoned(bool running, std::string_view how) {
    return job::Outcome::abandoned(running ? "did not end after SIGKILL; " + std::string(how)
                                           : std::string("connection not established in time; "
                                                         "given up"));
}

} // namespace colossalai::ssh
