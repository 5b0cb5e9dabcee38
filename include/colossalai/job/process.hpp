#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/outcome.hpp"
#include "colossalai/output/sink.hpp"

#include <poll.h>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

// The seam between the launcher and the ways of running a node's job (local child processes,
// libssh, srun). The implementations live in job/ (local), ssh/ and slurm/, the loop in launch/.
namespace colossalai::job {

using Clock = std::chrono::steady_clock;

// Where the launcher's loop and the processes read the time: the steady clock; unit tests move
// a clock of their own by hand (a plain function, so that it costs a call, not an allocation).
using Now = Clock::time_point (*)();
inline Clock::time_point steady_now() {
    return Clock::now();
}

// The rendezvous check's turns after the barrier (Process::check_rendezvous), in this order.
enum class RendezvousTurn { listen, connect };

// One node's job. Passive: the launcher's event loop asks for fds to wait on and calls back
// when they are ready. All methods are called from the launcher's thread only.
class Process {
public:
    virtual ~Process() = default;
    // Appends the fds to wait on (with events) to `fds`.
    virtual void collect_fds(std::vector<pollfd>& fds) = 0;
    // Called after poll() with exactly the entries this process appended (revents filled in),
    // also when has_work() was true or deadline() passed (then possibly with no revents).
    virtual void process_events(std::span<const pollfd> fds) = 0;
    // True when the process can make progress without waiting (data already buffered, output
    // accepting again after backpressure): the loop then does not block in poll().
    virtual bool has_work() const { return false; }
    // When process_events() must be called at the latest, even without fd activity.
    virtual std::optional<Clock::time_point> deadline() const { return std::nullopt; }
    // The stop sequence. The launcher's loop drives it the same way for every transport:
    // stop() with the signal the launcher received (SIGTERM for fail-fast), kill() once
    // --kill-grace has passed or at a second signal, abandon() when even that does not end the
    // job. Each transport delivers the transitions its own way, said above its class.
    //
    // Stop: delivers `signo` to every process of the job, which may then end as it pleases (a
    // handler that writes a checkpoint and exits 0 is a clean end). Before go(), or while the
    // job waits for resources, the process ends `not_started` and nothing starts later. Best
    // effort; a signal already delivered is not delivered again.
    virtual void stop(int signo) = 0;
    // Kill: ends every process of the job now (SIGKILL, or the transport's equivalent). Before
    // go(): as stop().
    virtual void kill() = 0;
    // Lost: gives up on a job that does not end after kill() (a hung connection, a stuck srun):
    // releases its resources and sets an `abandoned` (or `not_started`) result.
    virtual void abandon() = 0;
    // Set once the job has ended and its output streams are closed.
    virtual std::optional<Outcome> result() const = 0;

    // Two steps, so that nothing is launched half-way: start() only prepares (connects to the
    // host and logs in); the launcher calls go() on every node once all are ready(), and never
    // when one failed first. A process stopped (stop(), kill()) before go() ends at once with a
    // `not_started` result, and a process that cannot get ready ends with an error result.
    virtual bool ready() const { return true; }
    virtual void go() {}

    // The rendezvous check (job/rendezvous_check.hpp) after the barrier and before go(), in two
    // turns: `listen` (the node that serves the rendezvous), then, once it listens, `connect`
    // (every other node). check_rendezvous(turn) tells the node to run its part of `turn`: true
    // when it has one, and then it is not ready() until that part answered (the listener
    // listens, the connection was answered); a failed part is the node's result (cannot_run,
    // job::preflight_exit_status). False: no part in this turn (not its role, or its transport
    // checks the rendezvous its own way, or not at all). The listener stops at go() or at its end.
    virtual bool check_rendezvous(RendezvousTurn /*turn*/) { return false; }

    // The node's name when the transport learnt it only as the job started (srun allocating the
    // nodes: the plan's hosts are placeholders); nullopt: the plan's host. The loop's notices and
    // the summary name the node by it.
    virtual std::optional<std::string> host() const { return std::nullopt; }

    // The launcher is about to stop itself (Ctrl-Z): for as long as it is stopped it runs no
    // loop, so a remote job must not take the silence that follows for a dead launcher.
    virtual void launcher_stopping() {}
};

// A job whose result is known at once (it could not be started): no fds, nothing to stop.
std::unique_ptr<Process> ended_process(Outcome result);

// Prepares jobs (see Process::go). start() never blocks for long: a remote connection proceeds
// in the background, and a failure to connect arrives as a `connect_failed` result.
class Transport {
public:
    virtual ~Transport() = default;
    virtual std::unique_ptr<Process> start(const NodeCommand& command,
                                           output::NodeOutput& output) = 0;

    // What a transport runs for all its nodes at once (the step family's one launcher process,
    // step/step.hpp), polled by the loop once per turn, before the nodes, while any node runs:
    // as Process's. A transport of one process per node has none.
    virtual void collect_fds(std::vector<pollfd>&) {}
    virtual void process_events(std::span<const pollfd>) {}
    virtual bool has_work() const { return false; }
    virtual std::optional<Clock::time_point> deadline() const { return std::nullopt; }
};

} // namespace colossalai::job
