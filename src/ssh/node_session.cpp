#include "node_session.hpp"

#include "colossalai/job/preflight.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <utility>

namespace colossalai::ssh {

namespace {

using job::Outcome;
using Phase = WrapperPhase;

std::optional<job::Clock::time_point> earliest(std::optional<job::Clock::time_point> a,
                                               job::Clock::time_point b) {
    return a ? std::min(*a, b) : b;
}

class NodeSession final : public job::Process {
public:
    NodeSession(std::unique_ptr<NodeChannel> channel, const job::NodeCommand& command,
                std::chrono::milliseconds answer_timeout, const SshSettings& settings,
                std::string input, std::vector<HostTiming>& timings)
        : m_timings(timings), m_channel(std::move(channel)), m_command(command),
          m_answer_timeout(answer_timeout), m_now(settings.now), m_notice(settings.notice),
          m_control(settings.heartbeat, settings.silence_limit, std::move(input)) {
        if (settings.rendezvous) {
            // Its turn, and the wait for its result: the probe's bound, and the answer's wait
            // again for the way there and back.
            m_rendezvous_turn =
                settings.rendezvous->listener == static_cast<std::size_t>(command.rank)
                    ? job::RendezvousTurn::listen
                    : job::RendezvousTurn::connect;
            m_rendezvous_wait = settings.rendezvous->bound + answer_timeout;
        }
        if (m_channel->started()) {
            // No worker queue: the node is picked as soon as it is queued.
            m_timing.mark(Mark::queued);
            m_timing.marks[static_cast<std::size_t>(Mark::picked)] = m_timing.marks.front();
            begin_checking();
        }
    }

    bool ready() const override { return m_phase == Phase::connected || m_result; }

    // The wrapper passed its checks and waits for this line to start the job.
    void go() override {
        if (m_phase != Phase::connected || m_result) {
            return;
        }
        m_phase = Phase::running;
        m_timing.mark(Mark::go);
        m_control.go(m_now());
        m_channel->begin_job(m_now());
        flush();
    }

    // The wrapper runs its part (remote_command.hpp, rendezvous_line) and answers on stdout as
    // it answered the preflight: the session reads that line in the checking phase again.
    bool check_rendezvous(job::RendezvousTurn turn) override {
        if (m_phase != Phase::connected || m_result || m_rendezvous_turn != turn) {
            return false;
        }
        m_rendezvous_turn.reset();
        m_phase = Phase::checking;
        m_answer->await_rendezvous(m_now(), m_rendezvous_wait,
                                   turn == job::RendezvousTurn::connect);
        m_control.rendezvous();
        flush();
        return true;
    }

    void collect_fds(std::vector<pollfd>& fds) override {
        if (!m_result) {
            m_channel->collect_fds(m_phase, !m_control.outbox().empty(), fds);
        }
    }

    bool has_work() const override { return !m_result && m_channel->has_work(m_phase); }

    std::optional<job::Clock::time_point> deadline() const override {
        if (m_result) {
            return std::nullopt;
        }
        std::optional<job::Clock::time_point> due = m_channel->deadline(m_phase);
        if (m_phase == Phase::checking) {
            due = earliest(due, m_answer->deadline());
        } else if (m_phase == Phase::running && m_channel->writable()) {
            due = earliest(due, m_control.next_heartbeat());
        }
        return due;
    }

    void process_events(std::span<const pollfd> fds) override {
        if (m_result) {
            return;
        }
        switch (m_phase) {
        case Phase::connecting:
            if (std::any_of(fds.begin(), fds.end(),
                            [](const pollfd& entry) { return entry.revents != 0; })) {
                open();
            }
            return;
        case Phase::checking:
        case Phase::connected:
            if (!m_control.outbox().empty()) {
                flush(); // the wrapper's input, where the channel carries it
            }
            if (!m_result) {
                listen(fds);
            }
            return;
        case Phase::running:
            run(fds);
            return;
        }
    }

    // Stop and kill: a control line (`TERM`, `KILL`) that the node wrapper turns into the signal
    // to the job's process group; before go(), the wrapper reads EOF instead of `go`.
    void stop(int signo) override { deliver(signo); }
    void kill() override { deliver(SIGKILL); }

    void launcher_stopping() override {
        if (m_phase != Phase::running || m_result || !m_channel->writable()) {
            return;
        }
        m_control.pause();
        flush();
        // Out before the launcher stops: a line still held by the channel would arrive only
        // when it resumes, after the wrapper's silence limit.
        if (!m_result) {
            m_channel->push(std::chrono::milliseconds(500));
        }
    }

    // Closing the connection is the wrapper's cue: its watcher stops the job.
    void abandon() override {
        if (!m_result) {
            finish(abandoned(m_phase == Phase::running, m_channel->abandon_how()));
        }
    }

    std::optional<Outcome> result() const override { return m_result; }

private:
    void deliver(int signo) {
        if (m_result) {
            return;
        }
        if (m_phase != Phase::running) { // nothing runs on the node yet, and nothing will
            finish(Outcome::not_started());
            return;
        }
        if (m_control.relay(signo)) {
            flush();
        }
    }

    void open() {
        if (std::optional<NodeChannel::Opened> opened = m_channel->open(m_timing)) {
            if (opened->failure) {
                finish(std::move(*opened->failure));
                return;
            }
            begin_checking();
            listen({}); // the answer may have come with the worker's last call
        }
    }

    void begin_checking() {
        m_phase = Phase::checking;
        m_answer.emplace(std::move(m_command), m_answer_timeout, m_now());
        flush();
    }

    // Before go: the answer, or the node's end before it, or the answer's wait running out.
    void listen(std::span<const pollfd> fds) {
        BeforeGo step = m_channel->before_go(*m_answer, fds);
        if (m_answer->started()) {
            mark_logged_in();
        }
        for (const std::string& notice : m_answer->take_notices()) {
            if (m_notice) {
                m_notice(fmt::format("colossalai: {}\n", notice));
            }
        }
        if (step.verdict) {
            take_verdict(*step.verdict);
        }
        if (step.rendezvous) {
            take_rendezvous(*step.rendezvous);
        }
        if (m_result) {
            return;
        }
        if (step.failure) {
            finish(std::move(*step.failure));
            return;
        }
        if (m_phase == Phase::checking) {
            if (std::optional<Outcome> late = m_answer->expired(m_now())) {
                finish(m_channel->overdue(*m_answer, std::move(*late)));
            }
        }
    }

    // The wrapper ran the launcher's command: the login is done. A channel that logs in unseen
    // (ssh's) counts all of it as connecting: the two marks after it are the same moment.
    void mark_logged_in() {
        auto& marks = m_timing.marks;
        if (!marks[static_cast<std::size_t>(Mark::connected)]) {
            m_timing.mark(Mark::connected);
            marks[static_cast<std::size_t>(Mark::host_key)] =
                marks[static_cast<std::size_t>(Mark::authenticated)] =
                    marks[static_cast<std::size_t>(Mark::connected)];
        }
    }

    void take_verdict(const PreflightVerdict& verdict) {
        if (verdict.failure) {
            finish(*verdict.failure);
            return;
        }
        m_timing.mark(Mark::channel);
        // The answer is no output of the job's.
        m_timing.marks[static_cast<std::size_t>(Mark::first_output)].reset();
        m_phase = Phase::connected;
    }

    // The node's part of the rendezvous check answered: it waits for go again, or ends with
    // what failed (nothing started on it).
    void take_rendezvous(const RendezvousAnswer& answer) {
        if (!answer.result) {
            finish(job::Outcome::cannot_run(job::describe_no_rendezvous_result(),
                                            job::preflight_exit_status));
        } else if (job::is_failure(*answer.result)) {
            finish(job::Outcome::cannot_run(job::describe(*answer.result),
                                            job::preflight_exit_status));
        } else {
            m_phase = Phase::connected;
        }
    }

    void run(std::span<const pollfd> fds) {
        // An empty line now and then: the node wrapper stops the job when they stop coming.
        if (m_channel->writable()) {
            m_control.heartbeat(m_now());
        }
        if (std::optional<Outcome> lost = m_channel->watch(m_now())) {
            finish(std::move(*lost));
            return;
        }
        flush();
        if (m_result) {
            return;
        }
        if (std::optional<ChannelEnd> end = m_channel->pump(fds, m_timing)) {
            end_with(std::move(*end));
        }
    }

    void flush() {
        while (m_channel->writable() && !m_control.outbox().empty()) {
            NodeChannel::Written written = m_channel->write(m_control.outbox());
            if (written.end) {
                end_with(std::move(*written.end));
                return;
            }
            if (written.bytes == 0) {
                break;
            }
            m_control.written(written.bytes);
        }
        if (!m_channel->writable()) {
            m_control.drop(); // its job ended or ssh did: a control line has nothing to stop
        }
        m_channel->push(std::chrono::milliseconds(0));
    }

    void end_with(ChannelEnd end) {
        if (WrapperReport* report = std::get_if<WrapperReport>(&end)) {
            finish(m_control.job_end(report->status));
        } else {
            finish(std::move(std::get<Outcome>(end)));
        }
    }

    // A node whose job ran leaves its timing: the end known now, the connection closed once
    // the channel is.
    void finish(Outcome outcome) {
        bool running = m_phase == Phase::running;
        if (running) {
            m_timing.mark(Mark::exit_status);
        }
        m_channel->close(running);
        m_result = std::move(outcome);
        if (running) {
            m_timing.mark(Mark::closed);
            m_timings.push_back(m_timing);
        }
    }

    std::vector<HostTiming>& m_timings; // the transport's, one entry per host whose job ran
    HostTiming m_timing;                // this node's; the channel's callbacks may mark it too
    std::unique_ptr<NodeChannel> m_channel;
    job::NodeCommand m_command; // what the wrapper's failed checks name (moved to m_answer)
    std::chrono::milliseconds m_answer_timeout;
    Now m_now;
    std::function<void(std::string_view)> m_notice; // SshSettings::notice
    Phase m_phase = Phase::connecting;
    std::optional<PreflightAnswer> m_answer; // from the checking phase on
    // The rendezvous check's turn in which this node has its part, until it was told to run it.
    std::optional<job::RendezvousTurn> m_rendezvous_turn;
    std::chrono::milliseconds m_rendezvous_wait{0};
    WrapperControl m_control; // the wrapper's stdin not yet written, the signals relayed
    std::optional<Outcome> m_result;
};

} // namespace

std::unique_ptr<job::Process> make_node_session(std::unique_ptr<NodeChannel> channel,
                                                const job::NodeCommand& command,
                                                std::chrono::milliseconds answer_timeout,
                                                const SshSettings& settings, std::string input,
                                                std::vector<HostTiming>& timings) {
    return std::make_unique<NodeSession>(std::move(channel), command, answer_timeout, settings,
                                         std::move(input), timings);
}

} // namespace colossalai::ssh
