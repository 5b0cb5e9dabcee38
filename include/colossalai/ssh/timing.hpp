#pragma once

// Where the time of an SSH launch goes, per host and phase: `COLOSSALAI_TIMING=1 colossalai run`
// prints it after the summary. Recording costs a clock read per phase and host.

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::ssh {

using TimingClock = std::chrono::steady_clock;

// The moments of one host's launch, in order. libssh's ssh_connect() does the TCP connect, the
// banner exchange and the key exchange in one call: `connected` ends all three.
enum class Mark : std::size_t {
    queued,        // its connection was handed to the worker pool
    picked,        // a worker began it
    connected,     // TCP connect + banners + key exchange done
    host_key,      // host key checked against known_hosts
    authenticated, // logged in
    channel,       // channel opened, wrapper started, environment sent, preflight passed
    go,            // every host was ready: the `go` line was sent
    first_output,  // the first data (or the end) from the job arrived
    output_ended,  // both of the job's streams ended (everything it wrote was read)
    exit_status,   // the node's end was known: its exit status or signal (or a lost connection)
    closed,        // the connection was closed: libssh's session freed, OpenSSH's ssh reaped
};
constexpr std::size_t mark_count = 11;

struct HostTiming {
    std::array<std::optional<TimingClock::time_point>, mark_count> marks;
    void mark(Mark which) { marks[static_cast<std::size_t>(which)] = TimingClock::now(); }
    // Marks `which` now unless it was marked before: the first time counts.
    void mark_once(Mark which) {
        if (!marks[static_cast<std::size_t>(which)]) {
            mark(which);
        }
    }
};

// The report: per phase (between two successive marks), over the hosts that reached both, the
// median and the largest duration and when the last host finished it, counted from `start`.
// One `colossalai: timing ...` header line, then one line per phase.
std::string render_timing(const std::vector<HostTiming>& hosts, TimingClock::time_point start);

} // namespace colossalai::ssh
