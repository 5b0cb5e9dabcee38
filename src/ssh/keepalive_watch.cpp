#include "keepalive_watch.hpp"

#include <fmt/core.h>

namespace colossalai::ssh {

KeepaliveWatch::KeepaliveWatch(std::chrono::milliseconds interval, int count,
                               job::Clock::time_point started)
    : m_interval(interval), m_count(count), m_deadline(started + interval) {}

KeepaliveWatch KeepaliveWatch::for_host(const ClientConfig& config,
                                        std::chrono::milliseconds interval, int count,
                                        job::Clock::time_point started) {
    if (config.server_alive_interval.value_or(0) > 0) {
        interval = std::chrono::seconds(*config.server_alive_interval);
        count = config.server_alive_count_max.value_or(3);
    }
    return KeepaliveWatch(interval, count, started);
}

KeepaliveWatch::Verdict KeepaliveWatch::check(job::Clock::time_point now,
                                              std::uint64_t packets_received, bool bytes_waiting) {
    if (now < m_deadline) {
        return {};
    }
    m_deadline = now + m_interval;
    if (packets_received != m_packets_seen) {
        m_packets_seen = packets_received;
        m_unanswered = 0;
    } else if (bytes_waiting) {
        m_unanswered = 0;
    } else if (++m_unanswered >= m_count) {
        return {Verdict::Action::lose, m_interval * m_count};
    }
    return {Verdict::Action::send, {}};
}

job::Outcome KeepaliveWatch::lost(std::chrono::milliseconds silence) {
    std::chrono::duration<double> seconds = silence;
    return job::Outcome::connection_lost(fmt::format(
        "connection lost: no answer from its sshd for {:g} s (keepalive)", seconds.count()));
}

} // namespace colossalai::ssh
