#pragma once

// Private to the ssh module: whether a running node's sshd still answers, judged every keepalive
// interval from what came from it. Pure: no libssh here; the libssh channel reads its packet
// counter and the socket, sends the requests and ends the connection.

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/ssh/client_config.hpp"

#include <chrono>
#include <cstdint>

namespace colossalai::ssh {

// A node whose sshd stops answering (frozen, stopped, its machine hung) while its kernel still
// acknowledges TCP is noticed by nothing else: TCP_USER_TIMEOUT never fires. So a
// `keepalive@openssh.com` request, which sshd answers, goes out every interval, and `count`
// intervals in a row in which nothing at all came from the node lose the connection.
class KeepaliveWatch {
public:
    // The first interval ends `interval` after `started`.
    KeepaliveWatch(std::chrono::milliseconds interval, int count, job::Clock::time_point started);

    // The launcher's `interval` and `count`, unless the host's ssh config sets
    // ServerAliveInterval (seconds, not 0): then that and ServerAliveCountMax (default 3, as
    // OpenSSH's) replace both. A ServerAliveCountMax without ServerAliveInterval changes nothing.
    static KeepaliveWatch for_host(const ClientConfig& config, std::chrono::milliseconds interval,
                                   int count, job::Clock::time_point started);

    // What check() asks of the caller.
    struct Verdict {
        enum class Action {
            wait, // the interval has not ended
            send, // send a keepalive request (the next interval has begun)
            lose, // the node answered nothing for `count` intervals: the connection is lost
        };
        Action action = Action::wait;
        std::chrono::milliseconds silence{}; // lose: interval × count
    };
    // At `now`, with `packets_received` (libssh's running count of packets taken in from the
    // node) and `bytes_waiting` (unread bytes on its socket, which came from the node all the
    // same: the launcher's output may be full, so the socket is not read). Either one since the
    // last ended interval is an answer; otherwise the interval counts as unanswered.
    Verdict check(job::Clock::time_point now, std::uint64_t packets_received, bool bytes_waiting);

    // When the current interval ends.
    job::Clock::time_point deadline() const { return m_deadline; }

    // The outcome of a connection whose node answered nothing for `silence`.
    static job::Outcome lost(std::chrono::milliseconds silence);

private:
    std::chrono::milliseconds m_interval;
    int m_count;
    job::Clock::time_point m_deadline;
    std::uint64_t m_packets_seen = 0;
    int m_unanswered = 0; // intervals in a row without anything from the node
};

} // namespace colossalai::ssh
