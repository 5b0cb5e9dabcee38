#pragma once

// Private to the ssh module: the node wrapper's preflight answer, read from the start of its
// stdout while the launcher's loop waits for it. Pure: no libssh here; a NodeChannel
// (node_channel.hpp) reads the node's stdout into it, its own way.

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/outcome.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/job/rendezvous_check.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colossalai::ssh {

// How the checking phase ended: the checks passed (`failure` empty: the wrapper waits for
// `go`), or the outcome the node ends with, not started.
struct PreflightVerdict {
    std::optional<job::Outcome> failure;
};

// How the node's part of the rendezvous check answered: the listener with its first result
// (listening, or why it cannot), the connection once it ended (rendezvous_end_line) with its
// first failure, else its last result; `result` empty: it ended with none (its Python did not
// run the program).
struct RendezvousAnswer {
    std::optional<job::RendezvousResult> result;
};

// The answer's line as its bytes arrive, in any split, and the end of the wait for it.
class PreflightAnswer {
public:
    // `command` names what a failed check was about; the answer is due `timeout` after
    // `started` (--ssh-timeout, from the moment the wrapper was started).
    PreflightAnswer(job::NodeCommand command, std::chrono::milliseconds timeout,
                    job::Clock::time_point started);

    // What take() did with the bytes it was given.
    struct Step {
        std::size_t consumed = 0; // bytes taken, up to the answer's newline and never beyond
        std::optional<PreflightVerdict> verdict; // set once the answer's line is complete
        // Once await_rendezvous() asked for it: the node's part of the rendezvous check
        // answered (RendezvousAnswer).
        std::optional<RendezvousAnswer> rendezvous;
    };
    // Takes the wrapper's stdout, in order. Lines before the answer (a start-up file's banner)
    // are skipped (the first KiB of them kept for ended()); a line longer than 64 KiB ends the wait
    // with a failure. Nothing after the answer's newline is consumed (the job's output follows it);
    // an unfinished line is kept for the next call. Not to be called again once a verdict was
    // given.
    Step take(std::string_view bytes);

    // The notices the wrapper sent before its answer (job::notice_marker), each a line that names
    // the node (`HOST: NOTICE`, job::describe_node_notice), taken once.
    std::vector<std::string> take_notices() { return std::exchange(m_notices, {}); }
    // After a passing verdict, the wrapper was told to run its part of the rendezvous check
    // (rendezvous_line, at `now`): take() reads its result line next, which is due `wait` later;
    // the lines before it (a warning of the check's, the probe's own errors) are skipped.
    // `until_end`: the part ends with rendezvous_end_line (the connection); else its first
    // result answers (the listener, which runs on).
    void await_rendezvous(job::Clock::time_point now, std::chrono::milliseconds wait,
                          bool until_end);
    // Whether take() wants more bytes: no verdict yet, or a rendezvous result awaited. A channel
    // reads the node's stdout into take() only while it does; what follows is the job's.
    bool awaiting() const { return m_awaiting; }

    // The wrapper said it started (its started_line came): the login worked and ran the command.
    bool started() const { return m_started; }
    // When the answer is due.
    job::Clock::time_point deadline() const { return m_deadline; }
    // The failure to end with once `now` reached the deadline; nullopt before it.
    std::optional<job::Outcome> expired(job::Clock::time_point now) const;
    // The failure for a node whose stdout ended before any answer: when the wrapper never said
    // it started (started_line), its login shell (`user`'s) did not run the launcher's command
    // (nologin, /bin/false); else the wrapper failed. `err`: what the node wrote on stderr;
    // `exit_status` as it came (nullopt: none). What it printed on stdout was kept by take().
    job::Outcome ended(std::string_view user, std::string_view err,
                       std::optional<int> exit_status) const;
    // The failure for a lost connection (`reason`: libssh's error text).
    static job::Outcome lost(const std::string& reason);

private:
    job::NodeCommand m_command;
    std::chrono::milliseconds m_timeout;
    bool m_awaiting = true;    // take() wants bytes
    bool m_rendezvous = false; // what it awaits is the rendezvous check's result
    bool m_until_end = false;  // ... up to rendezvous_end_line
    std::optional<job::RendezvousResult> m_result; // the result kept until then
    job::Clock::time_point m_deadline;
    std::string m_line;     // the line being read, without its newline
    bool m_started = false; // the wrapper's started_line came
    std::string m_printed;  // the first lines before the answer that were not the wrapper's
    std::vector<std::string> m_notices; // not yet taken
};

} // namespace colossalai::ssh
