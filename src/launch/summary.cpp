#include "colossalai/launch/summary.hpp"

#include <fmt/core.h>

namespace colossalai::launch {

std::string render_summary(const std::vector<NodeOutcome>& outcomes) {
    std::string text = "====== Training on All Nodes =====\n";
    for (const NodeOutcome& outcome : outcomes) {
        if (outcome.left_after) {
            text +=
                fmt::format("{}: left {:.1f} s after the start ({}); the job went on without "
                            "it\n",
                            outcome.host, static_cast<double>(outcome.left_after->count()) / 1000.0,
                            job::describe(outcome.exit, outcome.delivered));
        } else if (outcome.exit.success() && !outcome.stopped()) {
            text += fmt::format("{}: success\n", outcome.host);
        } else {
            text += fmt::format("{}: {} ({})\n", outcome.host,
                                outcome.exit.success() ? "success" : "failure",
                                job::describe(outcome.exit, outcome.delivered));
        }
    }
    return text;
}

namespace {

// A failed node's status as the launcher's: never 0, even for a node "failing" with 0.
int failure_status(const job::Outcome& exit) {
    int status = exit.status();
    return status == 0 ? 1 : status;
}

} // namespace

int launcher_exit_code(const std::vector<NodeOutcome>& outcomes,
                       std::optional<size_t> first_failure, int launcher_signal) {
    if (launcher_signal != 0) {
        return 128 + launcher_signal;
    }
    if (first_failure && *first_failure < outcomes.size()) {
        return failure_status(outcomes[*first_failure].exit);
    }
    for (const NodeOutcome& outcome : outcomes) {
        if (!outcome.exit.success() && !outcome.left_after) {
            return failure_status(outcome.exit);
        }
    }
    return 0;
}

} // namespace colossalai::launch
