#pragma once

#include "colossalai/job/process.hpp"
#include "colossalai/launch/summary.hpp"
#include "colossalai/output/multiplexer.hpp"

#include <poll.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::launch {

struct Settings {
    // After SIGTERM (fail-fast) or a forwarded signal: how long nodes get before SIGKILL.
    std::chrono::milliseconds kill_grace{10000};
    // After SIGKILL: how long to wait for a node (e.g. a hung connection) before giving up on it.
    std::chrono::milliseconds abandon_after{5000};
    // --log-dir: each node's output also goes to files there (output/node_log.hpp).
    std::optional<std::string> log_dir;
    // An elastic launch's MIN (--nnodes MIN:MAX): once the jobs run, a node that fails or is lost
    // leaves the job while at least this many still run; fail-fast applies below it. nullopt: a
    // static launch, where the first failure stops every node.
    std::optional<std::size_t> min_nodes;
    // Where the loop's deadlines (the grace period, giving up) read the time, and how it waits
    // for its fds until the next one: the steady clock and poll(2). Unit tests pass a clock of
    // their own and a wait that moves it by the timeout instead of sleeping.
    job::Now now = job::steady_now;
    using Wait = int (*)(pollfd* fds, nfds_t count, int timeout_ms);
    Wait wait = [](pollfd* fds, nfds_t count, int timeout_ms) {
        return ::poll(fds, count, timeout_ms);
    };
};

// Where the launcher's own signals come from: a pollable fd and a way to read what arrived.
struct SignalSource {
    int fd = -1;
    std::function<std::vector<int>()> take;
};

struct LaunchResult {
    std::vector<NodeOutcome> outcomes;   // in node order
    std::optional<size_t> first_failure; // the node whose failure stopped the others
    int launcher_signal = 0;             // the first signal the launcher received
    int exit_code = 0;
};

// Picks the transport for a node (local child process or SSH).
using TransportFor = std::function<job::Transport&(const job::NodeCommand&)>;

// Runs every node to its end in one poll() loop on the calling thread:
// - starts all nodes (each transport's start() returns at once), and polls each transport that
//   the nodes use once per turn for what it runs for all of them (one srun), then each node;
// - streams their output into `output` (one NodeOutput per node, prefixed `host: ` there),
//   whose writes the loop drives too: it never blocks on the launcher's own stdout or stderr;
// - fail-fast: the first node that fails stops the others (SIGTERM, SIGKILL after the grace);
//   in an elastic launch (settings.min_nodes), only once fewer than MIN nodes would still run:
//   before that a failed or lost node leaves the job (a notice, and the summary says when);
// - a signal to the launcher (SIGINT/SIGTERM/SIGHUP) is passed to every node, a second one
//   kills them at once; the exit code is then 128+signal.
// Its own notices go to `output` as `colossalai: ...` lines on stderr.
LaunchResult run_nodes(const std::vector<job::NodeCommand>& nodes, const TransportFor& transport,
                       output::Multiplexer& output, const SignalSource& signals,
                       const Settings& settings);

} // namespace colossalai::launch
