#pragma once

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/process.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What the node session (node_session.hpp) says to a node wrapper (remote_command.hpp) and makes
// of its end, over either SSH client; its channel writes the outbox (a libssh channel, ssh's
// stdin).
namespace colossalai::ssh {

// Where a node stands with its wrapper: connecting (libssh's worker: login, the wrapper sent) ->
// checking (the wrapper's preflight answer is read) -> connected (ready, waits for go) ->
// running (the job started).
enum class WrapperPhase { connecting, checking, connected, running };

// The wrapper's stdin as the launcher writes it: one outbox (what goes out next: the wrapper's
// input over ssh, `go`, control lines, heartbeats), the signals relayed to the job, the
// heartbeat's schedule. The clock is the caller's (its `now`).
class WrapperControl {
public:
    // `input`: what the wrapper reads first (none over libssh: its worker sent it).
    WrapperControl(std::chrono::milliseconds heartbeat, std::chrono::milliseconds silence_limit,
                   std::string input = {});

    // The job starts: `go` is queued and the first heartbeat is due one interval after `now`.
    void go(job::Clock::time_point now);
    // Before go: the wrapper runs its part of the rendezvous check (rendezvous_line) next.
    void rendezvous();
    // Queues the control line for `signo` and remembers the signal; false for a signal the
    // wrapper does not relay (nothing queued).
    bool relay(int signo);
    // Queues the line that lifts the wrapper's silence limit until the next line (Ctrl-Z).
    void pause();
    // Queues an empty line when a heartbeat is due at `now` and nothing else is queued (any line
    // proves the launcher alive), and schedules the next; true when a line was queued.
    bool heartbeat(job::Clock::time_point now);
    job::Clock::time_point next_heartbeat() const { return m_next_heartbeat; }

    // The bytes not yet written, and how the channel took them.
    std::string_view outbox() const { return m_outbox; }
    void written(std::size_t bytes) { m_outbox.erase(0, bytes); }
    // Nothing more can be written (the channel closed): what waits is dropped.
    void drop() { m_outbox.clear(); }

    // The job's end as the wrapper reports it: its exit status (0-255), or nullopt when the
    // wrapper's silence limit stopped it. 128+N is "killed by signal N" when N was relayed (or
    // KILL after it); else the job's own exit code, as on a local node.
    job::Outcome job_end(std::optional<int> status) const;

private:
    std::optional<int> relayed_signal(int status) const;

    std::string m_outbox;
    std::vector<int> m_relayed; // the signals relayed, in order
    std::chrono::milliseconds m_heartbeat;
    std::chrono::milliseconds m_silence_limit; // the wrapper's (for the message)
    job::Clock::time_point m_next_heartbeat{};
};

// A node given up on after SIGKILL (`running`: its job ran; `how`: what became of its
// connection, e.g. "connection closed") or before its connection was established.
job::Outcome abandoned(bool running, std::string_view how);

} // namespace colossalai::ssh
