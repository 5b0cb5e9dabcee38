#include "colossalai/launch/local_rendezvous.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/exec/capture.hpp"
#include "colossalai/exec/spawn.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/launch/summary.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace colossalai::launch {

namespace {

using Clock = std::chrono::steady_clock;

// A node's results: the lines of its probe's output that are results.
std::vector<job::RendezvousResult> results_in(std::string_view output) {
    std::vector<job::RendezvousResult> results;
    for (std::string_view line : util::split_lines(output)) {
        if (std::optional<job::RendezvousResult> result = job::parse_rendezvous_line(line)) {
            results.push_back(*result);
        }
    }
    return results;
}

std::vector<std::string> environment_of(const run::Plan& plan, const job::NodeCommand& node) {
    return job::with_flag_environment(
        job::local_environment(plan.launcher_environment, node.environment_changes, false),
        node.flag_environment);
}

// The listener, a child of this process until it is told to stop.
class Listener {
public:
    explicit Listener(exec::SpawnedJob job) : m_job(std::move(job)) {}
    ~Listener() {
        m_job.in_fd = util::Fd(); // EOF: it stops
        if (exec::wait_child(m_job.pid, Clock::now() + std::chrono::seconds(2)).state ==
            exec::ChildWait::State::running) {
            ::kill(-m_job.pid, SIGKILL);
            exec::reap_child(m_job.pid, true);
        }
    }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    // Its output up to its first result line (or its end, or the deadline).
    std::vector<job::RendezvousResult> first_results(Clock::time_point deadline) {
        std::string output;
        while (true) {
            std::vector<job::RendezvousResult> results = results_in(output);
            if (!results.empty() && output.ends_with('\n') &&
                (results.back().outcome == job::RendezvousOutcome::listening ||
                 job::is_failure(results.back()))) {
                return results;
            }
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) {
                return results;
            }
            pollfd watched{m_job.out_fd.get(), POLLIN, 0};
            if (::poll(&watched, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) {
                return results;
            }
            char buffer[4096];
            ssize_t got = ::read(m_job.out_fd.get(), buffer, sizeof buffer);
            if (got == 0) {
                return results_in(output); // it ended
            }
            if (got > 0) {
                output.append(buffer, static_cast<std::size_t>(got));
            }
        }
    }

private:
    exec::SpawnedJob m_job;
};

} // namespace

bool checks_rendezvous_locally(const run::Plan& plan) {
    return engines::rendezvous_way(plan) == job::RendezvousWay::launcher;
}

std::string describe_rendezvous_check(const job::RendezvousPlan& check) {
    std::string target =
        fmt::format("{} port {}", util::escape_for_message(check.address), check.port);
    if (!check.listener) {
        return fmt::format("rendezvous check: every node connects to {} before the jobs start "
                           "(--no-rendezvous-check: none)",
                           target);
    }
    return fmt::format("rendezvous check: node {} listens on port {}, the others connect to {} "
                       "before the jobs start (--no-rendezvous-check: none)",
                       *check.listener, check.port, target);
}

std::optional<int> check_rendezvous_locally(const run::Plan& plan, std::ostream& err) {
    const job::RendezvousPlan& check = *plan.rendezvous;
    // Each node's first failed result.
    std::vector<std::optional<job::RendezvousResult>> failures(plan.nodes.size());
    bool failed = false;
    auto judge = [&](std::size_t rank, const std::vector<job::RendezvousResult>& results) {
        for (const job::RendezvousResult& result : results) {
            if (job::is_failure(result)) {
                if (!failures[rank]) {
                    failures[rank] = result;
                }
                failed = true;
            } else if (result.outcome == job::RendezvousOutcome::own_name_loopback) {
                err << fmt::format("colossalai: warning: {}: {}\n", plan.nodes[rank].host,
                                   job::describe(result));
            }
        }
    };
    std::optional<Listener> listener;
    if (check.listener) {
        const job::NodeCommand& node = plan.nodes[*check.listener];
        exec::SpawnRequest request{
            job::rendezvous_command(
                check.python,
                job::probe_for(check, static_cast<std::size_t>(node.rank), job::ProbeStart::told)),
            environment_of(plan, node), node.working_directory, true};
        try {
            listener.emplace(exec::spawn_job(request));
        } catch (const Error&) {
            return std::nullopt; // no such Python: the preflight names what is missing
        }
        std::vector<job::RendezvousResult> results =
            listener->first_results(Clock::now() + check.bound);
        judge(node.rank, results);
        bool listening = std::any_of(results.begin(), results.end(), [](const auto& result) {
            return result.outcome == job::RendezvousOutcome::listening;
        });
        if (!listening && !failed) {
            return std::nullopt; // it could not run: the preflight says why
        }
    }
    // One after the other: a handful of nodes on one machine, each answered at once unless it
    // fails; none when the listener failed (nothing to connect to).
    bool listener_failed = failed;
    for (std::size_t rank = 0; rank < plan.nodes.size() && !listener_failed; ++rank) {
        if (rank == check.listener) {
            continue;
        }
        const job::NodeCommand& node = plan.nodes[rank];
        exec::CaptureResult probe =
            exec::capture(job::rendezvous_command(
                              check.python, job::probe_for(check, rank, job::ProbeStart::told)),
                          check.bound + std::chrono::seconds(5), environment_of(plan, node));
        judge(rank, results_in(probe.output));
    }
    listener.reset();
    if (!failed) {
        return std::nullopt;
    }
    std::vector<NodeOutcome> outcomes;
    for (const job::NodeCommand& node : plan.nodes) {
        const auto& failure = failures[static_cast<std::size_t>(node.rank)];
        NodeOutcome& outcome = outcomes.emplace_back(
            NodeOutcome{node.host, job::Outcome::not_started(), {}, std::nullopt});
        if (failure) {
            outcome.exit =
                job::Outcome::cannot_run(job::describe(*failure), job::preflight_exit_status);
        }
    }
    err << render_summary(outcomes);
    return job::preflight_exit_status;
}

} // namespace colossalai::launch
