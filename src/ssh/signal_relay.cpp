#include "signal_relay.hpp"

#include "colossalai/ssh/remote_command.hpp"

#include <algorithm>

namespace colossalai::ssh {

bool SignalRelay::relay(int signo, std::string& outbox) {
    std::optional<std::string> line = control_line(signo);
    if (line) {
        m_relayed.push_back(signo);
        outbox += *line;
    }
    return line.has_value();
}

std::optional<int> SignalRelay::relayed_signal(int status) const {
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
