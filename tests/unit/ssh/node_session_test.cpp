// The wrapper protocol's state machine (node_session.hpp) over a scripted channel: every
// transition the launcher's loop can drive, for either SSH client, with no libssh, no ssh
// program and a clock the test moves by hand. What each real channel does its own way is tested
// over it: libssh_session_*_test.cpp (the fake libssh), openssh_session_test.cpp (a fake ssh).

#include "../test_clock.hpp"
#include "node_channel.hpp"
#include "node_session.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using job::Outcome;
using test::TestClock;

const std::string wrapper_ready = std::string(started_line) + "\n\036colossalai-ready\n";

// What the test scripts the channel to say, and what the session did with it.
struct Channel {
    // Scripted.
    bool started = true;                       // the wrapper is on its way at once
    std::optional<NodeChannel::Opened> opened; // open(): nullopt while the worker is busy
    std::string node_says;                     // stdout before go, taken by before_go()
    std::optional<Outcome> ends_before_go;     // the node's end, told by before_go()
    std::optional<Outcome> overdue_says;       // overdue(): replaces the late answer
    std::optional<ChannelEnd> end;             // pump(): the job's end
    std::optional<ChannelEnd> write_ends;      // write(): finds the end
    std::optional<Outcome> watch_loses;        // watch(): the connection is dead
    std::size_t window = std::numeric_limits<std::size_t>::max(); // bytes write() takes
    bool writable = true;
    bool has_work = false;
    std::optional<job::Clock::time_point> deadline;
    // Recorded.
    std::string written;
    std::vector<std::chrono::milliseconds> pushes;
    std::vector<WrapperPhase> phases; // collect_fds()
    std::vector<bool> writing;        // collect_fds()
    std::vector<job::Clock::time_point> jobs_begun;
    int pumps = 0;
    int watches = 0;
    std::optional<bool> closed_running; // close(running)
    int closes = 0;
};

class ScriptedChannel final : public NodeChannel {
public:
    explicit ScriptedChannel(Channel& state) : m(state) {}

    bool started() const override { return m.started; }
    std::optional<Opened> open(HostTiming& timing) override {
        timing.mark(Mark::connected);
        timing.mark(Mark::first_output); // the answer's bytes, as libssh's callbacks mark them
        return m.opened;
    }
    void collect_fds(WrapperPhase phase, bool writing, std::vector<pollfd>& fds) override {
        m.phases.push_back(phase);
        m.writing.push_back(writing);
        fds.push_back({100, POLLIN, 0});
    }
    bool has_work(WrapperPhase) const override { return m.has_work; }
    std::optional<job::Clock::time_point> deadline(WrapperPhase) const override {
        return m.deadline;
    }
    BeforeGo before_go(PreflightAnswer& answer, std::span<const pollfd>) override {
        BeforeGo step;
        if (!m.node_says.empty() && answer.awaiting()) {
            PreflightAnswer::Step taken = answer.take(m.node_says);
            m.node_says.erase(0, taken.consumed); // the job's, held for go
            step.verdict = taken.verdict;
            step.rendezvous = taken.rendezvous;
        }
        step.failure = std::exchange(m.ends_before_go, std::nullopt);
        return step;
    }
    Outcome overdue(const PreflightAnswer&, Outcome late) override {
        return m.overdue_says.value_or(std::move(late));
    }
    void begin_job(job::Clock::time_point now) override { m.jobs_begun.push_back(now); }
    std::optional<Outcome> watch(job::Clock::time_point) override {
        ++m.watches;
        return m.watch_loses;
    }
    std::optional<ChannelEnd> pump(std::span<const pollfd>, HostTiming& timing) override {
        ++m.pumps;
        if (m.end) {
            timing.mark_once(Mark::first_output);
            timing.mark_once(Mark::output_ended);
        }
        return m.end;
    }
    bool writable() const override { return m.writable; }
    Written write(std::string_view bytes) override {
        if (m.write_ends) {
            return Written{0, m.write_ends};
        }
        std::size_t taken = std::min(bytes.size(), m.window);
        m.written.append(bytes.substr(0, taken));
        m.window -= taken;
        return Written{taken, std::nullopt};
    }
    void push(std::chrono::milliseconds wait) override { m.pushes.push_back(wait); }
    std::string_view abandon_how() const override { return "channel closed"; }
    void close(bool running) override {
        m.closed_running = running;
        ++m.closes;
    }

private:
    Channel& m;
};

class NodeSession : public ::testing::Test {
protected:
    NodeSession() { TestClock::reset(); }

    // The session over the scripted channel: an answer due in 7 s, a heartbeat every second,
    // the wrapper's silence limit 5 s.
    void start(std::string input = "INPUT\n",
               std::optional<job::RendezvousPlan> rendezvous = std::nullopt, int rank = 0) {
        SshSettings settings;
        settings.rendezvous = std::move(rendezvous);
        settings.heartbeat = 1000ms;
        settings.silence_limit = 5000ms;
        settings.now = TestClock::now;
        settings.notice = [this](std::string_view text) { notices += text; };
        job::NodeCommand command;
        command.host = "node1";
        command.rank = rank;
        command.argv = {"torchrun", "train.py"};
        command.preflight.torch_pair = pair;
        session = make_node_session(std::make_unique<ScriptedChannel>(channel), command, 7000ms,
                                    settings, std::move(input), timings);
    }

    // One pass of the loop with the channel's descriptor ready (revents set).
    void pass() {
        std::vector<pollfd> fds;
        session->collect_fds(fds);
        for (pollfd& entry : fds) {
            entry.revents = POLLIN;
        }
        session->process_events(fds);
    }

    // Started, answered ready, `go` written.
    void run() {
        start();
        channel.node_says = wrapper_ready;
        pass();
        ASSERT_TRUE(session->ready());
        session->go();
        ASSERT_FALSE(session->result());
        channel.written.clear();
    }

    std::optional<Outcome> result() const { return session->result(); }
    WrapperPhase phase() {
        std::vector<pollfd> fds;
        session->collect_fds(fds);
        return channel.phases.back();
    }
    job::Clock::time_point started_at = TestClock::now();

    Channel channel;
    std::vector<HostTiming> timings;
    std::unique_ptr<job::Process> session;
    std::optional<job::TorchPairCheck> pair; // what the node is asked to read of its PyTorch
    std::string notices;                     // what SshSettings::notice was given
};

// Connecting: a channel opened by a worker.

TEST_F(NodeSession, AChannelOpenedByAWorkerIsAskedOnlyOnAnEventThenAnswersAtOnce) {
    channel.started = false;
    start("");
    EXPECT_EQ(phase(), WrapperPhase::connecting);
    session->process_events({}); // a deadline's pass: no event, nothing asked
    EXPECT_EQ(phase(), WrapperPhase::connecting);
    pass(); // the worker is still busy
    EXPECT_EQ(phase(), WrapperPhase::connecting);
    EXPECT_FALSE(session->ready());
    channel.opened.emplace();
    channel.node_says = wrapper_ready; // came with the worker's last call
    pass();
    EXPECT_TRUE(session->ready());
    EXPECT_FALSE(result());
    EXPECT_EQ(channel.written, "");
}

TEST_F(NodeSession, AChannelThatFailsToOpenEndsTheNodeWithItsFailure) {
    channel.started = false;
    channel.opened = NodeChannel::Opened{Outcome::connect_failed("connection refused")};
    start("");
    pass();
    EXPECT_EQ(result(), Outcome::connect_failed("connection refused"));
    EXPECT_TRUE(session->ready()); // ended: the launcher stops waiting for it
    EXPECT_EQ(channel.closed_running, false);
    EXPECT_TRUE(timings.empty()); // no job ran
}

// Checking: the preflight answer.

TEST_F(NodeSession, AStartedChannelGetsTheInputFirstAndAwaitsTheAnswer) {
    start();
    EXPECT_EQ(channel.written, "INPUT\n");
    EXPECT_EQ(phase(), WrapperPhase::checking);
    EXPECT_EQ(session->deadline(), started_at + 7000ms); // the answer is due
    EXPECT_FALSE(session->ready());
}

TEST_F(NodeSession, InputTheChannelDoesNotTakeAtOnceIsWrittenWhenItDoes) {
    channel.window = 2;
    start();
    EXPECT_EQ(channel.written, "IN");
    std::vector<pollfd> fds;
    session->collect_fds(fds);
    EXPECT_TRUE(channel.writing.back()); // the outbox waits: the channel is asked to write
    channel.window = 100;
    pass();
    EXPECT_EQ(channel.written, "INPUT\n");
    session->collect_fds(fds);
    EXPECT_FALSE(channel.writing.back());
}

TEST_F(NodeSession, AnAnswerSplitAcrossPassesIsReadWhole) {
    start();
    channel.node_says = wrapper_ready.substr(0, 7);
    pass();
    EXPECT_FALSE(session->ready());
    channel.node_says = wrapper_ready.substr(7) + "job output";
    pass();
    EXPECT_TRUE(session->ready());
    EXPECT_EQ(channel.node_says, "job output"); // nothing beyond the answer is taken
    EXPECT_EQ(phase(), WrapperPhase::connected);
}

// Issue #40: the wrapper's notice before its answer is the launcher's line naming the node, once;
// the node is ready all the same.
TEST_F(NodeSession, ANoticeBeforeTheAnswerIsPrintedNamingTheNodeAndFailsNothing) {
    pair = job::TorchPairCheck{job::TorchInterpreter::shebang,
                               "torchrun",
                               {{1, 9, std::nullopt}, {2, 0, std::nullopt}, {3, 11, std::nullopt}}};
    start();
    channel.node_says = "\036colossalai-notice pair 1.13 3.11\n";
    pass();
    EXPECT_FALSE(session->ready());
    EXPECT_TRUE(notices.starts_with("colossalai: node1: PyTorch 1.13 on Python 3.11: torchrun "
                                    "stops before any worker starts"))
        << notices;
    EXPECT_TRUE(notices.ends_with("for up to 9 processes per node\n")) << notices;
    std::string once = notices;
    channel.node_says = wrapper_ready;
    pass();
    EXPECT_TRUE(session->ready());
    EXPECT_FALSE(result());
    EXPECT_EQ(notices, once);
}

TEST_F(NodeSession, AFailedCheckEndsTheNodeAsCannotRunAndGoStartsNothing) {
    start();
    channel.node_says = std::string(started_line) + "\n\036colossalai-failed command\n";
    pass();
    EXPECT_EQ(result(), Outcome::cannot_run(job::describe(job::PreflightFailure{
                                                job::PreflightCheck::command, "torchrun"}),
                                            job::preflight_exit_status));
    EXPECT_TRUE(session->ready());
    session->go(); // the launcher's fail-fast may still call it: nothing happens
    EXPECT_EQ(channel.written, "INPUT\n");
    EXPECT_TRUE(channel.jobs_begun.empty());
    EXPECT_EQ(channel.closed_running, false);
}

TEST_F(NodeSession, ANodeThatEndsBeforeItsAnswerEndsWithTheChannelsReason) {
    start();
    channel.ends_before_go = Outcome::connect_failed("ssh: Connection refused");
    pass();
    EXPECT_EQ(result(), Outcome::connect_failed("ssh: Connection refused"));
    EXPECT_EQ(channel.closes, 1);
}

TEST_F(NodeSession, NoAnswerInTimeEndsTheNodeAtItsDeadline) {
    start();
    TestClock::advance(6999ms);
    session->process_events({});
    EXPECT_FALSE(result());
    TestClock::advance(1ms);
    session->process_events({});
    EXPECT_EQ(result(),
              Outcome::connect_failed("no answer from the node's preflight checks in 7 s"));
    EXPECT_EQ(channel.closed_running, false);
}

TEST_F(NodeSession, TheChannelMayNameABetterReasonForAnOverdueAnswer) {
    start();
    channel.overdue_says = Outcome::connect_failed("the login shell ran nothing");
    TestClock::advance(7000ms);
    session->process_events({});
    EXPECT_EQ(result(), Outcome::connect_failed("the login shell ran nothing"));
}

// Connected: the barrier and go.

TEST_F(NodeSession, ReadyWaitsForGoWhichIsWrittenOnceAndStartsTheJob) {
    start();
    session->go(); // not wrapper_ready: nothing
    EXPECT_EQ(channel.written, "INPUT\n");
    channel.node_says = wrapper_ready;
    pass();
    EXPECT_TRUE(session->ready());
    EXPECT_EQ(phase(), WrapperPhase::connected);
    EXPECT_EQ(session->deadline(), std::nullopt); // the answer's wait is over
    TestClock::advance(3000ms);
    session->go();
    session->go(); // once
    EXPECT_EQ(channel.written, "INPUT\n" + std::string(go_line));
    EXPECT_EQ(channel.jobs_begun, std::vector<job::Clock::time_point>{TestClock::now()});
    EXPECT_EQ(phase(), WrapperPhase::running);
    EXPECT_EQ(session->deadline(), TestClock::now() + 1000ms); // the first heartbeat
}

TEST_F(NodeSession, ANodeReadyThenGoneInOnePassEndsWithTheChannelsReason) {
    start();
    channel.node_says = wrapper_ready;
    channel.ends_before_go = PreflightAnswer::lost("ssh ended");
    pass();
    EXPECT_EQ(result(), PreflightAnswer::lost("ssh ended"));
}

TEST_F(NodeSession, ANodeGoneWhileWaitingForGoEnds) {
    start();
    channel.node_says = wrapper_ready;
    pass();
    channel.ends_before_go = PreflightAnswer::lost("Connection closed");
    pass();
    EXPECT_EQ(result(), PreflightAnswer::lost("Connection closed"));
    session->go();
    EXPECT_TRUE(channel.jobs_begun.empty());
}

// Running: control lines, PAUSE, heartbeats.

TEST_F(NodeSession, StopAndKillAreControlLinesAndTheRelayedSignalsStatusAKill) {
    run();
    session->stop(SIGTERM);
    session->kill();
    EXPECT_EQ(channel.written, "TERM\nKILL\n");
    EXPECT_FALSE(result()); // the job ends when the node says so
    channel.end = WrapperReport{128 + SIGKILL};
    pass();
    EXPECT_EQ(result(), Outcome::killed(SIGKILL));
}

TEST_F(NodeSession, AStatusOf128PlusASignalNeverRelayedIsTheJobsOwnExitCode) {
    run();
    session->stop(SIGCHLD); // no control line for it
    EXPECT_EQ(channel.written, "");
    channel.end = WrapperReport{128 + SIGTERM};
    pass();
    EXPECT_EQ(result(), Outcome::exited(128 + SIGTERM));
}

TEST_F(NodeSession, TheLauncherStoppingWritesPauseAndPushesItOut) {
    run();
    channel.pushes.clear();
    session->launcher_stopping();
    EXPECT_EQ(channel.written, pause_line);
    EXPECT_EQ(channel.pushes, (std::vector<std::chrono::milliseconds>{0ms, 500ms}));
}

TEST_F(NodeSession, AHeartbeatIsWrittenWhenDueAndOnlyThen) {
    run();
    TestClock::advance(999ms);
    pass();
    EXPECT_EQ(channel.written, "");
    TestClock::advance(1ms);
    pass();
    EXPECT_EQ(channel.written, "\n");
    EXPECT_EQ(session->deadline(), TestClock::now() + 1000ms);
}

TEST_F(NodeSession, NoHeartbeatWhileALineWaitsForTheChannelAndTheRestGoesWhenItTakesIt) {
    run();
    channel.window = 3;
    session->stop(SIGTERM);
    session->kill();
    EXPECT_EQ(channel.written, "TER");
    TestClock::advance(1000ms);
    channel.window = 0;
    pass(); // due, but a line waits: that line proves the launcher alive
    std::vector<pollfd> fds;
    session->collect_fds(fds);
    EXPECT_TRUE(channel.writing.back());
    channel.window = 100;
    pass();
    EXPECT_EQ(channel.written, "TERM\nKILL\n");
}

TEST_F(NodeSession, TheChannelsDeadlineComesFirstWhenEarlier) {
    run();
    channel.deadline = TestClock::now() + 10ms;
    EXPECT_EQ(session->deadline(), TestClock::now() + 10ms);
    channel.deadline = TestClock::now() + 10s;
    EXPECT_EQ(session->deadline(), TestClock::now() + 1000ms);
}

TEST_F(NodeSession, AChannelClosedForWritingDropsTheLinesAndWantsNoHeartbeat) {
    run();
    channel.writable = false;
    session->stop(SIGTERM);
    TestClock::advance(5000ms);
    pass();
    session->launcher_stopping();
    EXPECT_EQ(channel.written, "");
    EXPECT_EQ(session->deadline(), std::nullopt);
    std::vector<pollfd> fds;
    session->collect_fds(fds);
    EXPECT_FALSE(channel.writing.back());
}

TEST_F(NodeSession, HasWorkIsTheChannelsUntilTheEnd) {
    run();
    channel.has_work = true;
    EXPECT_TRUE(session->has_work());
    channel.end = WrapperReport{0};
    pass();
    EXPECT_FALSE(session->has_work());
}

// Running: the end.

TEST_F(NodeSession, TheExitLinesStatusIsTheJobsAndItsTimingIsKept) {
    run();
    pass();
    EXPECT_FALSE(result());
    channel.end = WrapperReport{3};
    pass();
    EXPECT_EQ(result(), Outcome::exited(3));
    EXPECT_EQ(channel.closed_running, true);
    ASSERT_EQ(timings.size(), 1u);
    const auto& marks = timings[0].marks;
    for (Mark mark : {Mark::queued, Mark::picked, Mark::connected, Mark::channel, Mark::go,
                      Mark::first_output, Mark::output_ended, Mark::exit_status, Mark::closed}) {
        EXPECT_TRUE(marks[static_cast<std::size_t>(mark)]) << static_cast<int>(mark);
    }
    // No worker queue: picked as soon as queued; logged in unseen until the wrapper started.
    EXPECT_EQ(marks[static_cast<std::size_t>(Mark::picked)],
              marks[static_cast<std::size_t>(Mark::queued)]);
    EXPECT_EQ(marks[static_cast<std::size_t>(Mark::authenticated)],
              marks[static_cast<std::size_t>(Mark::connected)]);
    // Nothing more once ended.
    std::vector<pollfd> fds;
    session->collect_fds(fds);
    EXPECT_TRUE(fds.empty());
    int pumps = channel.pumps;
    session->process_events({});
    session->stop(SIGTERM);
    EXPECT_EQ(channel.pumps, pumps);
    EXPECT_EQ(channel.written, "");
    EXPECT_EQ(channel.closes, 1);
}

TEST_F(NodeSession, TheAnswerIsNoOutputOfTheJobs) {
    channel.started = false;
    channel.opened.emplace();
    channel.node_says = wrapper_ready;
    start("");
    pass(); // open() marks first_output, as libssh's callbacks do for the answer's bytes
    session->go();
    channel.end = WrapperReport{0};
    TestClock::advance(1ms);
    pass();
    ASSERT_EQ(timings.size(), 1u);
    const auto& marks = timings[0].marks;
    EXPECT_GE(marks[static_cast<std::size_t>(Mark::first_output)],
              marks[static_cast<std::size_t>(Mark::go)]);
}

TEST_F(NodeSession, TheWrappersSilenceLimitIsNoStatusOfTheJobs) {
    run();
    channel.end = WrapperReport{std::nullopt};
    pass();
    EXPECT_EQ(result(), stopped_by_silence(5000ms));
}

TEST_F(NodeSession, AnEndWithoutTheWrappersReportIsTheChannelsOutcome) {
    run();
    channel.end = Outcome::connection_lost("connection lost: ssh ended (exit status 255)");
    pass();
    EXPECT_EQ(result(), Outcome::connection_lost("connection lost: ssh ended (exit status 255)"));
    EXPECT_EQ(timings.size(), 1u); // the job ran
}

TEST_F(NodeSession, AConnectionFoundDeadByTheChannelsWatchEndsBeforeAnyWrite) {
    run();
    TestClock::advance(1000ms);
    channel.watch_loses = Outcome::connection_lost("connection lost: no answer (keepalive)");
    pass();
    EXPECT_EQ(result(), Outcome::connection_lost("connection lost: no answer (keepalive)"));
    EXPECT_EQ(channel.written, ""); // the heartbeat went nowhere
    EXPECT_EQ(channel.pumps, 0);
}

TEST_F(NodeSession, AWriteThatFindsTheEndEndsTheNode) {
    run();
    channel.write_ends = WrapperReport{0};
    session->stop(SIGTERM);
    EXPECT_EQ(result(), Outcome::exited(0));
}

// Stop, kill and abandon before the job runs.

TEST_F(NodeSession, AStopOrKillBeforeGoStartsNothing) {
    for (bool kill : {false, true}) {
        channel = Channel{};
        timings.clear();
        start();
        channel.node_says = wrapper_ready;
        pass();
        kill ? session->kill() : session->stop(SIGINT);
        EXPECT_EQ(result(), Outcome::not_started());
        session->go();
        EXPECT_EQ(channel.written, "INPUT\n"); // no go line: the wrapper reads EOF
        EXPECT_EQ(channel.closed_running, false);
    }
}

TEST_F(NodeSession, AStopWhileConnectingStartsNothing) {
    channel.started = false;
    start("");
    session->stop(SIGTERM);
    EXPECT_EQ(result(), Outcome::not_started());
    EXPECT_EQ(channel.closes, 1);
}

TEST_F(NodeSession, AbandonSaysWhatBecameOfTheConnection) {
    run();
    session->abandon();
    EXPECT_EQ(result(), Outcome::abandoned("did not end after SIGKILL; channel closed"));
    EXPECT_EQ(channel.closed_running, true);
    session->abandon();
    EXPECT_EQ(channel.closes, 1);
}

TEST_F(NodeSession, AbandonBeforeTheConnectionWasEstablished) {
    channel.started = false;
    start("");
    session->abandon();
    EXPECT_EQ(result(), Outcome::abandoned("connection not established in time; given up"));
}

} // namespace
} // namespace colossalai::ssh

namespace colossalai::ssh {
namespace {

// The rendezvous check after the barrier (Process::check_rendezvous): node 0 listens, the others
// connect; a 10 s bound, so a result is due 17 s after the line (the bound and the answer's 7 s).

job::RendezvousPlan rendezvous_plan() {
    job::RendezvousPlan plan;
    plan.python = "python3";
    plan.token = "0123456789abcdef";
    plan.listener = 0;
    plan.address = "node1";
    plan.port = 29500;
    plan.nodes = 2;
    return plan;
}

std::string says(job::RendezvousOutcome outcome, std::string error = {}) {
    job::RendezvousResult result;
    result.outcome = outcome;
    result.port = 29500;
    if (outcome != job::RendezvousOutcome::listening) {
        result.name = "node1";
        result.address = "10.0.0.1";
    }
    result.error = std::move(error);
    return std::string(job::rendezvous_marker) + job::rendezvous_line(result) + "\n";
}

const std::string rendezvous_end = std::string(rendezvous_end_line) + "\n";

class NodeRendezvous : public NodeSession {
protected:
    // Started as node `rank` of a launch with the check, answered ready.
    void ready_as(int rank) {
        start("", rendezvous_plan(), rank);
        channel.node_says = wrapper_ready;
        pass();
        ASSERT_TRUE(session->ready());
    }
};

TEST_F(NodeRendezvous, NoPartWithoutACheck) {
    start("");
    channel.node_says = wrapper_ready;
    pass();
    EXPECT_FALSE(session->check_rendezvous(job::RendezvousTurn::listen));
    EXPECT_FALSE(session->check_rendezvous(job::RendezvousTurn::connect));
    EXPECT_TRUE(session->ready());
    EXPECT_EQ(channel.written, "");
}

TEST_F(NodeRendezvous, TheListenerIsReadyOnceItListensAndGoesOnGo) {
    ready_as(0);
    EXPECT_FALSE(session->check_rendezvous(job::RendezvousTurn::connect));
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::listen));
    EXPECT_EQ(channel.written, "rdzv\n");
    EXPECT_FALSE(session->ready());
    EXPECT_EQ(phase(), WrapperPhase::checking);
    pass(); // nothing yet
    EXPECT_FALSE(session->ready());
    channel.node_says = says(job::RendezvousOutcome::listening) + "job output";
    pass();
    EXPECT_TRUE(session->ready());
    EXPECT_FALSE(result());
    EXPECT_EQ(channel.node_says, "job output"); // not the check's: held for the job
    EXPECT_FALSE(session->check_rendezvous(job::RendezvousTurn::listen)); // once
    session->go();
    EXPECT_EQ(channel.written, "rdzv\ngo\n");
}

TEST_F(NodeRendezvous, AListenerThatCannotListenEndsTheNode) {
    ready_as(0);
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::listen));
    channel.node_says = says(job::RendezvousOutcome::port_in_use);
    pass();
    ASSERT_TRUE(result());
    EXPECT_EQ(*result(),
              Outcome::cannot_run("port 29500 is in use on the master: an earlier job still "
                                  "running? (stop it, or give --master_port another port)",
                                  job::preflight_exit_status));
    EXPECT_EQ(channel.closes, 1);
}

TEST_F(NodeRendezvous, AConnectionAnswersAtItsEndWithItsFirstFailure) {
    ready_as(1);
    EXPECT_FALSE(session->check_rendezvous(job::RendezvousTurn::listen));
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::connect));
    channel.node_says = says(job::RendezvousOutcome::refused);
    pass();
    EXPECT_FALSE(result()); // its end is awaited
    EXPECT_FALSE(session->ready());
    channel.node_says = says(job::RendezvousOutcome::answered) + rendezvous_end;
    pass();
    ASSERT_TRUE(result());
    EXPECT_EQ(*result(), Outcome::cannot_run("'node1' (10.0.0.1) port 29500: connection refused "
                                             "(nothing listens there: does the name lead this "
                                             "node to another machine than the master?)",
                                             job::preflight_exit_status));
}

// A warning (own name on loopback, gloo's interface given) is one notice naming the node.
TEST_F(NodeRendezvous, AWarningIsOneNoticeThenAnAnswerPasses) {
    ready_as(1);
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::connect));
    job::RendezvousResult warning{
        job::RendezvousOutcome::own_name_loopback, "node2", "127.0.1.1", 0, {}, std::nullopt, true};
    channel.node_says = std::string(job::rendezvous_marker) + job::rendezvous_line(warning) + "\n" +
                        says(job::RendezvousOutcome::answered) + rendezvous_end;
    pass();
    EXPECT_FALSE(result());
    EXPECT_TRUE(session->ready());
    EXPECT_EQ(notices, "colossalai: warning: node1: the node's own name 'node2' resolves to the "
                       "loopback address 127.0.1.1 on the node (gloo uses the interface it was "
                       "given instead)\n");
}

TEST_F(NodeRendezvous, AConnectionThatEndsWithNoResultFails) {
    ready_as(1);
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::connect));
    channel.node_says = "python3: not found\n" + rendezvous_end;
    pass();
    ASSERT_TRUE(result());
    EXPECT_EQ(*result(), Outcome::cannot_run("rendezvous check: the node's Python printed no "
                                             "result (is it Python 3.6 or newer? "
                                             "--no-rendezvous-check skips the check)",
                                             job::preflight_exit_status));
}

TEST_F(NodeRendezvous, NoResultInTheBoundAndTheAnswersWaitFails) {
    ready_as(0);
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::listen));
    ASSERT_TRUE(session->deadline());
    EXPECT_EQ(*session->deadline(), TestClock::now() + 17000ms);
    TestClock::advance(16999ms);
    session->process_events({});
    EXPECT_FALSE(result());
    TestClock::advance(1ms);
    session->process_events({});
    ASSERT_TRUE(result());
    EXPECT_EQ(*result(), Outcome::cannot_run("rendezvous check: no result from the node in 17 s",
                                             job::preflight_exit_status));
}

TEST_F(NodeRendezvous, AStopDuringTheCheckStartsNothing) {
    ready_as(1);
    ASSERT_TRUE(session->check_rendezvous(job::RendezvousTurn::connect));
    session->stop(SIGTERM);
    ASSERT_TRUE(result());
    EXPECT_EQ(*result(), Outcome::not_started());
    EXPECT_EQ(channel.written, "rdzv\n");
}

} // namespace
} // namespace colossalai::ssh
