#pragma once

#include "colossalai/job/outcome.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::launch {

// What happened to one node, for the summary.
struct NodeOutcome {
    std::string host;
    job::Outcome exit;
    // What the launcher's stop sequence delivered to the node, in order (the stop signal,
    // SIGKILL for a kill); empty unless the launcher stopped it (fail-fast or a signal to the
    // launcher).
    std::vector<int> delivered;
    // An elastic launch went on without the node: how long after the jobs started it left.
    std::optional<std::chrono::milliseconds> left_after = std::nullopt;
    bool stopped() const { return !delivered.empty(); }
};

// The end-of-job block (job::describe says what each node got and how it ended):
//   ====== Training on All Nodes =====
//   host1: success
//   host2: failure (exit code 3)
//   host3: failure (killed by SIGTERM, stopped by the launcher)
//   host4: failure (connection lost: ...)
//   host5: success (exit code 0 after SIGTERM, stopped by the launcher)
//   host6: left 12.3 s after the start (killed by SIGKILL); the job went on without it
std::string render_summary(const std::vector<NodeOutcome>& outcomes);

// The launcher's exit status: 128+N when the launcher itself was stopped by signal N; else the
// status of the first node that failed (job::Outcome::status), not counting the nodes that left
// an elastic launch; else 0.
int launcher_exit_code(const std::vector<NodeOutcome>& outcomes,
                       std::optional<size_t> first_failure, int launcher_signal);

} // namespace colossalai::launch
