#include "colossalai/launch/launcher.hpp"

#include "colossalai/launch/progress.hpp"
#include "colossalai/launch/stop_policy.hpp"
#include "colossalai/output/node_log.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>

namespace colossalai::launch {

namespace {

using job::Clock;
using job::Process;

struct Node {
    const job::NodeCommand* command;
    std::unique_ptr<Process> process;
    std::optional<job::Outcome> exit;
    // What the stop sequence delivered (stop's signals, SIGKILL for kill), for the summary.
    std::vector<int> delivered;
    // An elastic launch went on without it: when it left, after the jobs started.
    std::optional<std::chrono::milliseconds> left_after = std::nullopt;
    size_t fd_begin = 0;
    size_t fd_end = 0;
};

// A transport the nodes use, polled once per turn for what it runs for all of them.
struct PolledTransport {
    job::Transport* transport;
    size_t fd_begin = 0;
    size_t fd_end = 0;
};

class Loop {
public:
    Loop(const SignalSource& signals, const Settings& settings)
        : m_signals(signals), m_settings(settings) {}

    LaunchResult run(const std::vector<job::NodeCommand>& commands, const TransportFor& transport,
                     output::Multiplexer& output) {
        m_output = &output;
        for (const job::NodeCommand& command : commands) {
            m_nodes.push_back(Node{&command, nullptr, std::nullopt, {}, std::nullopt});
        }
        for (Node& node : m_nodes) {
            output::NodeOutput* sink = &output.add_node(node.command->host + ": ");
            if (m_settings.log_dir) {
                m_logs.push_back(std::make_unique<output::NodeLog>(
                    *sink, *m_settings.log_dir,
                    output::log_file_stem(node.command->rank, node.command->host),
                    [&output](std::string_view text) { output.write_notice(text); }));
                sink = m_logs.back().get();
            }
            job::Transport& its = transport(*node.command);
            if (std::none_of(
                    m_transports.begin(), m_transports.end(),
                    [&its](const PolledTransport& polled) { return polled.transport == &its; })) {
                m_transports.push_back(PolledTransport{&its});
            }
            node.process = its.start(*node.command, *sink);
        }
        m_progress.emplace(output, output.terminal(output::Stream::err) && !all_settled(),
                           m_nodes.size());
        while (collect_results()) {
            show_progress();
            start_when_all_ready();
            wait_and_dispatch();
            check_timers();
        }
        m_progress->erase();
        LaunchResult result;
        for (Node& node : m_nodes) {
            result.outcomes.push_back(
                NodeOutcome{host_of(node), *node.exit, node.delivered, node.left_after});
        }
        result.first_failure = m_first_failure;
        result.launcher_signal = m_launcher_signal;
        result.exit_code = launcher_exit_code(result.outcomes, m_first_failure, m_launcher_signal);
        return result;
    }

private:
    // Records nodes that ended; applies fail-fast. Returns true while some node still runs.
    // Before the jobs start, a failure (a host that cannot be reached) waits for the other
    // connections to settle, so that the summary names every host that failed, not only the
    // first; nothing runs anywhere in the meantime.
    bool collect_results() {
        bool running = false;
        for (size_t i = 0; i < m_nodes.size(); ++i) {
            Node& node = m_nodes[i];
            if (node.exit) {
                continue;
            }
            node.exit = node.process->result();
            if (!node.exit) {
                running = true;
            } else if (!node.exit->success() && !m_failed) {
                if (!leaves(node)) {
                    m_failed = i;
                }
            }
        }
        if (m_failed && !m_first_failure && m_launcher_signal == 0 && !m_kill_deadline &&
            !m_abandon_deadline && (m_started || all_settled())) {
            m_first_failure = m_failed;
            if (running) {
                Node& failed = m_nodes[*m_failed];
                notice("{} failed ({}); {}", host_of(failed), job::describe(*failed.exit),
                       m_started ? "stopping the other nodes" : "starting no job");
                stop_all(SIGTERM);
                arm_grace(SIGTERM);
            }
        }
        return running;
    }

    // Once the jobs run, an elastic launch goes on without a node that failed or was lost while
    // enough others still run (launch/stop_policy.hpp); the node is marked as having left.
    bool leaves(Node& node) {
        if (!m_started || m_launcher_signal != 0 || !m_settings.min_nodes) {
            return false;
        }
        auto running = static_cast<std::size_t>(std::count_if(
            m_nodes.begin(), m_nodes.end(), [](const Node& other) { return !other.exit; }));
        if (classify_node_end(m_settings.min_nodes, false, running) != NodeEnd::left) {
            return false;
        }
        node.left_after =
            std::chrono::duration_cast<std::chrono::milliseconds>(m_settings.now() - m_started_at);
        notice("{} left the job ({}); it goes on with {} node{} (at least {})", host_of(node),
               job::describe(*node.exit), running, running == 1 ? "" : "s", *m_settings.min_nodes);
        return true;
    }

    // The node's name: the plan's, or the one its transport learnt as the job started.
    static std::string host_of(const Node& node) {
        return node.process->host().value_or(node.command->host);
    }

    // True when no node is still connecting.
    bool all_settled() const {
        return std::all_of(m_nodes.begin(), m_nodes.end(),
                           [](const Node& node) { return node.exit || node.process->ready(); });
    }

    // Every job starts once every node is ready, none before: a host that cannot be reached or
    // logged into must not leave the others' jobs half-launched. A failure or a signal before
    // that point stops the prepared nodes (stop_all) instead.
    void start_when_all_ready() {
        if (m_started || m_failed || m_launcher_signal != 0 || !all_settled()) {
            return;
        }
        // The rendezvous check's turns, each once the last one settled: the nodes that took a
        // part are ready() again when it answered, or failed (and no job starts).
        while (m_rendezvous_turns.size() > 0) {
            job::RendezvousTurn turn = m_rendezvous_turns.front();
            m_rendezvous_turns.erase(m_rendezvous_turns.begin());
            bool asked = false;
            for (Node& node : m_nodes) {
                if (!node.exit && node.process->check_rendezvous(turn)) {
                    asked = true;
                }
            }
            if (asked) {
                return;
            }
        }
        m_started = true;
        m_started_at = m_settings.now();
        m_progress->erase(); // before any job can write to the terminal
        for (Node& node : m_nodes) {
            if (!node.exit) {
                node.process->go();
            }
        }
    }

    // The `connecting 37/128 (2 failed)` line while hosts connect (launch/progress.hpp).
    void show_progress() {
        if (m_started) {
            return;
        }
        size_t ready = 0;
        size_t failed = 0;
        for (const Node& node : m_nodes) {
            failed += node.exit ? 1 : 0;
            ready += !node.exit && node.process->ready() ? 1 : 0;
        }
        m_progress->update(ready, failed);
    }

    void wait_and_dispatch() {
        m_fds.clear();
        m_fds.push_back({m_signals.fd, POLLIN, 0});
        // The launcher's own outputs: written as they take bytes, never waited for here.
        m_output->collect_fds(m_fds);
        size_t output_end = m_fds.size();
        bool work = false;
        std::optional<Clock::time_point> wake = earliest(m_kill_deadline, m_abandon_deadline);
        wake = earliest(wake, m_output->deadline());
        for (PolledTransport& polled : m_transports) {
            polled.fd_begin = m_fds.size();
            polled.transport->collect_fds(m_fds);
            polled.fd_end = m_fds.size();
            work = work || polled.transport->has_work();
            wake = earliest(wake, polled.transport->deadline());
        }
        for (Node& node : m_nodes) {
            if (node.exit) {
                continue;
            }
            node.fd_begin = m_fds.size();
            node.process->collect_fds(m_fds);
            node.fd_end = m_fds.size();
            // A node that ended inside stop() (nothing left to wait for) is collected now.
            work = work || node.process->has_work() || node.process->result().has_value();
            wake = earliest(wake, node.process->deadline());
        }
        int timeout = -1;
        if (work) {
            timeout = 0;
        } else if (wake) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(*wake - m_settings.now());
            timeout = static_cast<int>(std::clamp<long long>(left.count() + 1, 0, 60000));
        }
        int ready = m_settings.wait(m_fds.data(), m_fds.size(), timeout);
        if (ready < 0 && errno != EINTR) {
            throw fatal_error("poll: {}", std::strerror(errno));
        }
        if (ready > 0 && m_fds[0].revents != 0) {
            for (int signo : m_signals.take()) {
                on_signal(signo);
            }
        }
        // Before the nodes: what the outputs took lets the nodes be read again.
        m_output->process_events(std::span<const pollfd>(m_fds).subspan(1, output_end - 1));
        for (PolledTransport& polled : m_transports) {
            polled.transport->process_events(std::span<const pollfd>(m_fds).subspan(
                polled.fd_begin, polled.fd_end - polled.fd_begin));
        }
        for (Node& node : m_nodes) {
            if (!node.exit) {
                node.process->process_events(std::span<const pollfd>(m_fds).subspan(
                    node.fd_begin, node.fd_end - node.fd_begin));
            }
        }
    }

    void on_signal(int signo) {
        if (signo == SIGTSTP) {
            stop_launcher();
            return;
        }
        if (m_launcher_signal == 0) {
            m_launcher_signal = signo;
            notice("received {}; stopping all nodes ({} again kills them at once)",
                   util::signal_name(signo), signo == SIGINT ? "Ctrl-C" : "the same signal");
            stop_all(signo);
            if (!m_kill_deadline && !m_abandon_deadline) {
                arm_grace(signo);
            }
            return;
        }
        if (!m_abandon_deadline) {
            notice("received {} again; killing all nodes", util::signal_name(signo));
            kill_all();
        }
    }

    // Ctrl-Z: the launcher stops as a program does, but its jobs go on (they are not in its
    // process group, and remote ones are told not to wait for heartbeats); their output waits in
    // their pipes and SSH windows until `fg`.
    void stop_launcher() {
        notice("stopped (SIGTSTP); the jobs keep running and their output waits; 'fg' resumes");
        for (Node& node : m_nodes) {
            if (!node.exit) {
                node.process->launcher_stopping();
            }
        }
        ::raise(SIGSTOP);
        notice("resumed");
    }

    void check_timers() {
        Clock::time_point now = m_settings.now();
        if (m_kill_deadline && now >= *m_kill_deadline) {
            if (any_running()) {
                notice("nodes still running {} ms after {}; sending SIGKILL",
                       m_settings.kill_grace.count(), util::signal_name(m_grace_signal));
            }
            kill_all();
        }
        if (m_abandon_deadline && now >= *m_abandon_deadline) {
            for (Node& node : m_nodes) {
                if (!node.exit && !node.process->result()) {
                    notice("{} did not end after SIGKILL; giving up on it", host_of(node));
                    node.process->abandon();
                }
            }
            m_abandon_deadline.reset();
            m_kill_deadline.reset();
        }
    }

    // The grace period after `signo` was sent to the nodes: SIGKILL when it ends.
    void arm_grace(int signo) {
        m_grace_signal = signo;
        m_kill_deadline = m_settings.now() + m_settings.kill_grace;
    }

    void kill_all() {
        for (Node& node : m_nodes) {
            if (!node.exit && !node.process->result()) {
                record(node, SIGKILL);
                node.process->kill();
            }
        }
        // The grace timer is spent: left armed, its past deadline would make every poll()
        // return at once until the abandon timer fires (a busy loop).
        m_kill_deadline.reset();
        m_abandon_deadline = m_settings.now() + m_settings.abandon_after;
    }

    // The stop transition of every node still running: `signo` to its whole job.
    void stop_all(int signo) {
        for (Node& node : m_nodes) {
            if (!node.exit && !node.process->result()) {
                record(node, signo);
                node.process->stop(signo);
            }
        }
    }

    static void record(Node& node, int signo) {
        if (std::find(node.delivered.begin(), node.delivered.end(), signo) ==
            node.delivered.end()) {
            node.delivered.push_back(signo);
        }
    }

    bool any_running() const {
        return std::any_of(m_nodes.begin(), m_nodes.end(),
                           [](const Node& node) { return !node.exit; });
    }

    static std::optional<Clock::time_point> earliest(std::optional<Clock::time_point> a,
                                                     std::optional<Clock::time_point> b) {
        if (!a) {
            return b;
        }
        if (!b) {
            return a;
        }
        return std::min(*a, *b);
    }

    template <typename... Args>
    void notice(fmt::format_string<Args...> format, Args&&... args) {
        if (m_progress) {
            m_progress->erase();
        }
        m_output->write_notice(
            fmt::format("colossalai: {}\n", fmt::format(format, std::forward<Args>(args)...)));
    }

    const SignalSource& m_signals;
    const Settings& m_settings;
    // Before m_nodes: a node's process writes into its log until the process is destroyed.
    std::vector<std::unique_ptr<output::NodeLog>> m_logs;
    output::Multiplexer* m_output = nullptr;
    std::vector<Node> m_nodes;
    std::vector<PolledTransport> m_transports;
    std::vector<pollfd> m_fds;
    std::optional<size_t> m_failed;        // the first node that failed
    std::optional<size_t> m_first_failure; // that node, once fail-fast acted on it
    int m_launcher_signal = 0;
    bool m_started = false; // go() was called
    // The rendezvous check's turns not yet taken (Process::check_rendezvous).
    std::vector<job::RendezvousTurn> m_rendezvous_turns{job::RendezvousTurn::listen,
                                                        job::RendezvousTurn::connect};
    Clock::time_point m_started_at{};
    std::optional<Clock::time_point> m_kill_deadline;
    int m_grace_signal = SIGTERM; // what the nodes were sent when the grace timer was armed
    std::optional<Clock::time_point> m_abandon_deadline;
    std::optional<ConnectProgress> m_progress; // set once the nodes are started
};

} // namespace

LaunchResult run_nodes(const std::vector<job::NodeCommand>& nodes, const TransportFor& transport,
                       output::Multiplexer& output, const SignalSource& signals,
                       const Settings& settings) {
    Loop loop(signals, settings);
    return loop.run(nodes, transport, output);
}

} // namespace colossalai::launch
