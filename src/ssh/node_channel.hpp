#pragma once

// Private to the ssh module: the byte channel that a node session (node_session.hpp) speaks the
// wrapper protocol over: a libssh channel (libssh_channel.cpp) or the `ssh` program's pipes
// (openssh_channel.cpp). The session holds the protocol's state and decides; a channel reads,
// writes and says what it saw, each its own way. Nothing here asks which channel it is.

#include "preflight_answer.hpp"
#include "wrapper_control.hpp"

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/ssh/timing.hpp"

#include <poll.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace colossalai::ssh {

// The wrapper's own report of the job's end: its exit status (0-255), or nullopt when its
// silence limit stopped the job. The session reads it against the signals it relayed.
struct WrapperReport {
    std::optional<int> status;
};
// How a running node ended, as its channel read it: the wrapper's report, or an outcome the
// channel knows by itself (a lost connection, the job's exit signal).
using ChannelEnd = std::variant<WrapperReport, job::Outcome>;

// What a channel made of the node before `go`: the preflight answer's verdict (or, once asked,
// the rendezvous check's result: PreflightAnswer::await_rendezvous), and a node or connection
// that ended (both may come in one pass: ready, then gone).
struct BeforeGo {
    std::optional<PreflightVerdict> verdict;
    std::optional<RendezvousAnswer> rendezvous; // the rendezvous check's part, once asked
    std::optional<job::Outcome> failure;
};

class NodeChannel {
public:
    virtual ~NodeChannel() = default;

    // Whether the wrapper is already on its way when the session begins (ssh's pipes: ssh
    // connects while the answer is awaited, and no worker queue comes before it); else the
    // channel is opened by a worker first (open()).
    virtual bool started() const = 0;
    // Connecting, after an event on its descriptor: nullopt while the worker is busy; else
    // `failure` empty (the wrapper started: its answer is awaited) or why it did not. The marks
    // made so far (queued ... authenticated) go into `timing`, the node's one record.
    struct Opened {
        std::optional<job::Outcome> failure;
    };
    virtual std::optional<Opened> open(HostTiming& timing) = 0;

    // The descriptors to wait on in `phase`; `writing`: the session's outbox waits.
    virtual void collect_fds(WrapperPhase phase, bool writing, std::vector<pollfd>& fds) = 0;
    // Work that no descriptor announces (data the channel took in already).
    virtual bool has_work(WrapperPhase /*phase*/) const { return false; }
    // The channel's own deadline in `phase`, if any (keepalive, a wait status polled).
    virtual std::optional<job::Clock::time_point> deadline(WrapperPhase /*phase*/) const {
        return std::nullopt;
    }

    // Before go (checking, connected): reads the preflight answer into `answer` and no byte of
    // the job's output before the answer is given, or holds what came after it until
    // begin_job(); notices a node that ended. `fds`: this pass's polled entries.
    virtual BeforeGo before_go(PreflightAnswer& answer, std::span<const pollfd> fds) = 0;
    // The answer did not come in time (`late` says so): the failure to end with, which may
    // say better why (the node ended, its status not in yet).
    virtual job::Outcome overdue(const PreflightAnswer& /*answer*/, job::Outcome late) {
        return late;
    }

    // The job starts (`go` is queued): the running connection's own set-up, what was held.
    virtual void begin_job(job::Clock::time_point /*now*/) {}
    // Running: the connection's own liveness check (at its deadline): the outcome of a
    // connection found dead.
    virtual std::optional<job::Outcome> watch(job::Clock::time_point /*now*/) {
        return std::nullopt;
    }
    // Running: reads the job's output into the node's output as far as it accepts, marks
    // first_output and output_ended in `timing`; the job's end once it is known.
    virtual std::optional<ChannelEnd> pump(std::span<const pollfd> fds, HostTiming& timing) = 0;

    // Whether the wrapper's stdin still takes bytes (not once the node closed it).
    virtual bool writable() const = 0;
    // Writes what it can of `bytes` now (0: it would block, or the channel closed); `end`: the
    // write found the node ended or the connection lost.
    struct Written {
        std::size_t bytes = 0;
        std::optional<ChannelEnd> end;
    };
    virtual Written write(std::string_view bytes) = 0;
    // Sends what the channel itself still holds, waiting up to `wait` (0: not at all).
    virtual void push(std::chrono::milliseconds /*wait*/) {}

    // What giving up on the node does to its connection, for the `abandoned` outcome.
    virtual std::string_view abandon_how() const = 0;
    // The node's session ends: its output streams still open are closed, the connection too
    // (a worker still connecting gives up; a child still running is killed and reaped).
    // `running`: the job had started (what the channel held back of its output is the job's).
    virtual void close(bool running) = 0;
};

} // namespace colossalai::ssh
