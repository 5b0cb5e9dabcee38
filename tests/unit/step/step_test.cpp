// The step family's own part, with an engine as small as an mpirun engine would be: no label on
// the launcher's lines, a stop delivered as a signal to the launcher, which forwards it. The
// launcher is a fake child the test drives (what it prints, when it ends); the delivery is
// recorded. srun's member of the family: tests/unit/slurm/slurm_transport_test.cpp.

#include "../fake_child.hpp"
#include "../recording_output.hpp"
#include "../relayed.hpp"
#include "../task_markers.hpp"
#include "../test_clock.hpp"

#include "colossalai/step/step.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::step {
namespace {

using job::Outcome;
using output::Stream;
using test::Child;
using test::RecordingOutput;

// What the engine was asked to do, in order: `deliver N` (the handle it saw), `check`.
struct Delivered {
    std::vector<std::string> calls;
};

// A launcher without labels (mpirun's shape): every line is read by the rank it carries; a stop
// is SIGUSR1 to the launcher (forwarded to the tasks), a kill is the launcher ending them.
class UnlabelledEngine : public Engine {
public:
    UnlabelledEngine(std::shared_ptr<Delivered> delivered, std::optional<ReadyBound> bound)
        : m_delivered(std::move(delivered)), m_bound(std::move(bound)) {}
    std::optional<LabelledLine> read_label(std::string_view line) const override {
        return LabelledLine{std::nullopt, line};
    }
    std::string notice(std::string_view line) const override {
        return "colossalai: mpirun: " + std::string(line) + "\n";
    }
    std::string step_handle(std::string_view handle) const override { return std::string(handle); }
    void deliver(Step& step, int signo) override {
        m_delivered->calls.push_back("deliver " + std::to_string(signo) + " " + step.handle());
        if (signo == SIGKILL) {
            step.end_by_launcher(SIGKILL);
        } else {
            step.signal_launcher(SIGUSR1);
        }
    }
    // Every task is ready: the go, SIGALRM, to the launcher.
    void release(Step& step) override {
        m_delivered->calls.push_back("release");
        step.signal_launcher(SIGALRM);
    }
    // Its tasks wait for the release only where it bounds their start (as mpirun's).
    bool waits_for_release() const override { return m_bound.has_value(); }
    std::optional<ReadyBound> ready_bound() const override { return m_bound; }

private:
    std::shared_ptr<Delivered> m_delivered;
    std::optional<ReadyBound> m_bound;
};

class StepTest : public ::testing::Test {
protected:
    void SetUp() override { test::TestClock::reset(); }
    void start(std::size_t count = 2) {
        Step::Settings settings;
        settings.launcher.argv = {"mpirun", "task"};
        settings.launcher_name = "mpirun";
        settings.tasks = count;
        settings.notice = [this](std::string_view text) { m_notices += text; };
        settings.now = test::TestClock::now;
        settings.spawn = [this](const exec::SpawnRequest& request, output::NodeOutput& output) {
            m_launcher = std::make_shared<Child>();
            m_launcher->request = request;
            m_launcher->output = &output;
            return std::make_unique<test::FakeChild>(m_launcher);
        };
        m_transport = std::make_unique<StepTransport>(
            std::move(settings), std::make_unique<UnlabelledEngine>(m_delivered, m_bound));
        m_outputs.resize(count);
        for (std::size_t rank = 0; rank < count; ++rank) {
            job::NodeCommand command;
            command.host = "node" + std::to_string(rank);
            command.rank = static_cast<int>(rank);
            command.argv = {"torchrun"};
            command.preflight.torch_pair = m_pair;
            m_processes.push_back(m_transport->start(command, m_outputs[rank]));
        }
    }
    void go() {
        for (auto& process : m_processes) {
            process->go();
        }
    }
    std::optional<Outcome> result(std::size_t rank) {
        std::vector<pollfd> fds;
        m_transport->collect_fds(fds);
        m_transport->process_events(fds);
        for (auto& process : m_processes) {
            if (!process->result()) {
                std::vector<pollfd> fds;
                process->collect_fds(fds);
                process->process_events(fds);
            }
        }
        return m_processes[rank]->result();
    }
    void say(std::size_t rank, const std::string& body) const {
        m_launcher->say(test::task_line(rank, body));
        m_launcher->say(test::task_line(rank, body), Stream::err);
    }
    void starts(std::size_t rank) const {
        say(rank, test::start_marker("- node" + std::to_string(rank)));
    }
    void ends(std::size_t rank, int status) const {
        say(rank, test::exit_marker(std::to_string(status)));
    }

    std::shared_ptr<Delivered> m_delivered = std::make_shared<Delivered>();
    std::shared_ptr<Child> m_launcher;
    std::vector<RecordingOutput> m_outputs;
    std::unique_ptr<StepTransport> m_transport;
    std::vector<std::unique_ptr<job::Process>> m_processes;
    std::string m_notices;
    std::optional<job::TorchPairCheck> m_pair; // what each node is asked to read of its PyTorch
    std::optional<ReadyBound> m_bound;         // the engine's bound on the tasks' start
};

TEST_F(StepTest, OneLauncherForEveryNodeStartedOnceAllGo) {
    start();
    EXPECT_EQ(m_launcher, nullptr);
    go();
    ASSERT_NE(m_launcher, nullptr);
    EXPECT_EQ(m_launcher->request.argv, (std::vector<std::string>{"mpirun", "task"}));
    // The loop polls the launcher through the transport, once for every node: its descriptors
    // and its deadline; the nodes' processes have none.
    m_launcher->fd = 7;
    m_launcher->deadline = job::Clock::time_point(std::chrono::seconds(5));
    std::vector<pollfd> fds;
    m_transport->collect_fds(fds);
    ASSERT_EQ(fds.size(), 1u);
    EXPECT_EQ(fds[0].fd, 7);
    EXPECT_EQ(m_transport->deadline(), m_launcher->deadline);
    fds[0].revents = POLLIN;
    m_transport->process_events(fds);
    EXPECT_EQ(m_launcher->events, std::vector<std::size_t>{1});
    for (auto& process : m_processes) {
        std::vector<pollfd> none;
        process->collect_fds(none);
        EXPECT_TRUE(none.empty());
        EXPECT_FALSE(process->deadline());
        EXPECT_FALSE(process->has_work());
    }
}

// Without a label, each line goes by the rank it carries; a line that is no task's is the
// launcher's own notice.
TEST_F(StepTest, LinesWithoutALabelGoByTheirRank) {
    start();
    go();
    starts(1);
    starts(0);
    m_launcher->say(test::frame(1, "one\r", 'p'));
    m_launcher->say("[host:123] mpirun noticed something");
    m_launcher->say(test::frame(0, "zero"));
    m_launcher->say(test::frame(1, "", 'N'), Stream::err);
    m_launcher->say(test::frame(7, "no such node"));
    ends(0, 0);
    ends(1, 3);
    m_launcher->end(Outcome::exited(1));
    EXPECT_EQ(result(0), Outcome::exited(0));
    EXPECT_EQ(result(1), Outcome::exited(3));
    EXPECT_EQ(m_outputs[0].out, "zero\n");
    EXPECT_EQ(m_outputs[1].out, "one\r");
    EXPECT_EQ(m_outputs[1].err, "\n");
    EXPECT_EQ(m_notices, "colossalai: mpirun: [host:123] mpirun noticed something\n"
                         "colossalai: mpirun: " +
                             test::frame(7, "no such node") + "\n");
}

// Without a label, the launcher's output reaches each node byte for byte by the rank its frames
// carry, however the reads of its pipe split or merge them, with lines over 64 KiB.
TEST_F(StepTest, UnlabelledFramesSurviveReadsSplitOrMergedAnywhere) {
    test::TwoNodesRelayed relayed = test::two_nodes_relayed({"", ""});
    const std::string& output = relayed.output;
    for (std::size_t chunk : test::read_sizes(output.size())) {
        SCOPED_TRACE(chunk);
        m_processes.clear();
        m_outputs.clear();
        start();
        go();
        starts(0);
        starts(1);
        for (std::size_t at = 0; at < output.size(); at += chunk) {
            m_launcher->output->write(Stream::out, std::string_view(output).substr(at, chunk));
        }
        ends(0, 0);
        ends(1, 0);
        m_launcher->end(Outcome::exited(0));
        EXPECT_EQ(result(0), Outcome::exited(0));
        EXPECT_EQ(result(1), Outcome::exited(0));
        EXPECT_TRUE(m_outputs[0].out == relayed.bytes[0]) << m_outputs[0].out.size();
        EXPECT_TRUE(m_outputs[1].out == relayed.bytes[1]) << m_outputs[1].out.size();
        EXPECT_EQ(m_notices, "");
    }
}

// mpirun's tasks write every frame of both of the job's streams on stderr, one packet each
// (relay.hpp): the daemons' reads, interleaved read by read as mpirun writes them, reach each
// node's own streams byte for byte however the launcher's pipe is read, with lines over 64 KiB;
// the node's output closes once both of its exit markers came, whichever stream's first.
TEST_F(StepTest, PacketsOfBothStreamsOnStderrReachEachNodesOwnStreams) {
    test::TwoNodesRelayed relayed = test::two_nodes_relayed({"", ""}, RelayChannel::stderr_packets);
    const std::string& output = relayed.output;
    for (std::size_t chunk : test::read_sizes(output.size())) {
        SCOPED_TRACE(chunk);
        m_processes.clear();
        m_outputs.clear();
        start();
        go();
        starts(0);
        starts(1);
        // The exit marker on stdout (Open MPI's pseudo-terminal) before the frames on stderr.
        m_launcher->say(test::task_line(0, test::exit_marker("0")));
        EXPECT_EQ(m_outputs[0].out_closed, 0);
        for (std::size_t at = 0; at < output.size(); at += chunk) {
            m_launcher->output->write(Stream::err, std::string_view(output).substr(at, chunk));
        }
        m_launcher->say(test::task_line(0, test::exit_marker("0")), Stream::err);
        ends(1, 0);
        m_launcher->end(Outcome::exited(0));
        EXPECT_EQ(result(0), Outcome::exited(0));
        EXPECT_EQ(result(1), Outcome::exited(0));
        for (std::size_t rank = 0; rank < 2; ++rank) {
            EXPECT_TRUE(m_outputs[rank].out == relayed.bytes[rank]) << m_outputs[rank].out.size();
            EXPECT_TRUE(m_outputs[rank].err == relayed.err[rank]) << m_outputs[rank].err.size();
            EXPECT_EQ(m_outputs[rank].out_closed, 1);
            EXPECT_EQ(m_outputs[rank].err_closed, 1);
        }
        EXPECT_EQ(m_notices, "");
    }
}

// A preflight failure is the node's: it could not run, and says which check failed.
TEST_F(StepTest, APreflightFailureIsItsNodesOutcome) {
    start(1);
    go();
    starts(0);
    m_launcher->say(test::task_line(0, std::string(job::failed_check_marker) + "command"));
    ends(0, job::preflight_exit_status);
    m_launcher->end(Outcome::exited(job::preflight_exit_status));
    job::PreflightFailure failure{job::PreflightCheck::command, "torchrun"};
    EXPECT_EQ(result(0), Outcome::cannot_run(job::describe(failure), job::preflight_exit_status));
}

// Issue #40: a task's notice is the launcher's line naming its node, once; it fails nothing.
TEST_F(StepTest, ANoticeNamesItsNodeAndFailsNothing) {
    m_pair =
        job::TorchPairCheck{job::TorchInterpreter::shebang,
                            "torchrun",
                            {{1, 9, std::nullopt}, {2, 0, std::nullopt}, {3, 11, std::nullopt}}};
    start(2);
    go();
    starts(1);
    m_launcher->say(test::task_line(1, std::string(job::notice_marker) + "pair 1.13 3.11"));
    EXPECT_TRUE(m_notices.starts_with("colossalai: node1: PyTorch 1.13 on Python 3.11: torchrun "
                                      "stops before any worker starts"))
        << m_notices;
    EXPECT_EQ(m_notices.find('\n'), m_notices.size() - 1) << m_notices; // one line
    EXPECT_EQ(m_outputs[1].out, "");
    ends(1, 0);
    EXPECT_EQ(result(1), Outcome::exited(0));
}

// A task's rendezvous check: its first failed result is its outcome; the progress lines
// (listening, answered) are no output of its job.
TEST_F(StepTest, ARendezvousFailureIsItsNodesOutcome) {
    start(1);
    go();
    starts(0);
    job::RendezvousResult refused{job::RendezvousOutcome::refused, "node1", "10.0.0.1", 29500};
    job::RendezvousResult timed_out{job::RendezvousOutcome::timed_out, "node1", "10.0.0.1", 29500};
    for (const job::RendezvousResult& result : {refused, timed_out}) {
        m_launcher->say(
            test::task_line(0, std::string(job::rendezvous_marker) + job::rendezvous_line(result)));
    }
    ends(0, job::preflight_exit_status);
    m_launcher->end(Outcome::exited(job::preflight_exit_status));
    EXPECT_EQ(result(0), Outcome::cannot_run(job::describe(refused), job::preflight_exit_status));
}

// --- the stop sequence, with the engine's delivery recorded ---

TEST_F(StepTest, StoppedBeforeGoNothingStarts) {
    start();
    m_processes[0]->stop(SIGTERM);
    go();
    EXPECT_EQ(m_launcher, nullptr);
    EXPECT_EQ(result(0), Outcome::not_started());
    EXPECT_EQ(result(1), Outcome::not_started());
    EXPECT_TRUE(m_delivered->calls.empty());
}

// Each signal reaches the engine once (every node's process asks), with the step's handle once a
// task named it; 128+N is the signal N that was delivered.
TEST_F(StepTest, TasksThatWaitAreLetGoOnceEveryOneIsReady) {
    start(3);
    go();
    say(0, std::string(step::task_ready_marker));
    say(2, std::string(step::task_ready_marker));
    EXPECT_TRUE(m_delivered->calls.empty());
    say(1, std::string(step::task_ready_marker));
    say(1, std::string(step::task_ready_marker)); // once
    EXPECT_EQ(m_delivered->calls, std::vector<std::string>{"release"});
    EXPECT_EQ(m_launcher->stopped, std::vector<int>{SIGALRM});
    EXPECT_TRUE(m_outputs[1].out.empty()); // a marker, not the job's output
}

// A stop before every task is ready lets none go: the stop goes to the engine, and the tasks
// that had not started never did.
TEST_F(StepTest, AStopBeforeEveryTaskIsReadyLetsNoneGo) {
    start();
    go();
    say(0, std::string(step::task_ready_marker));
    m_processes[0]->stop(SIGTERM);
    say(1, std::string(step::task_ready_marker));
    EXPECT_EQ(m_delivered->calls, std::vector<std::string>{"deliver 15 "});
    m_launcher->end(Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::not_started());
    EXPECT_EQ(result(1), Outcome::not_started());
}

TEST_F(StepTest, EachSignalIsDeliveredOnceAndItsStatusReadAsIt) {
    start();
    go();
    starts(0);
    starts(1);
    m_processes[0]->stop(SIGTERM);
    m_processes[1]->stop(SIGTERM);
    EXPECT_EQ(m_delivered->calls, std::vector<std::string>{"deliver 15 -"});
    EXPECT_EQ(m_launcher->stopped, std::vector<int>{SIGUSR1});
    ends(0, 143);
    ends(1, 0); // it handled the TERM: a clean end
    m_launcher->end(Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::killed(SIGTERM));
    EXPECT_EQ(result(1), Outcome::exited(0));
}

// After the stop and a kill, a task without a status was killed; one stopped before its start
// marker never started; nothing is delivered once the launcher ended.
TEST_F(StepTest, WithoutAStatusAStartedTaskWasKilledAndAnotherNeverStarted) {
    start();
    go();
    starts(0);
    m_processes[0]->stop(SIGINT);
    m_processes[0]->kill();
    EXPECT_EQ(m_launcher->stopped, (std::vector<int>{SIGUSR1, SIGKILL}));
    m_launcher->end(Outcome::killed(SIGKILL));
    EXPECT_EQ(result(0), Outcome::killed(SIGKILL));
    EXPECT_EQ(result(1), Outcome::not_started());
    m_processes[1]->stop(SIGHUP);
    EXPECT_EQ(m_delivered->calls, (std::vector<std::string>{"deliver 2 -", "deliver 9 -"}));
}

// Stopped, but no task said its status and the launcher did not end them: the stop signal.
TEST_F(StepTest, AStoppedTaskWithoutStatusWasKilledByTheStopSignal) {
    start(1);
    go();
    starts(0);
    m_processes[0]->stop(SIGINT);
    m_launcher->end(Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::killed(SIGINT));
}

// Not stopped: a task without its status lost it with the launcher, which is named.
TEST_F(StepTest, ALauncherThatEndsWithoutATasksStatusIsNamed) {
    start(1);
    go();
    starts(0);
    m_launcher->end(Outcome::exited(0));
    EXPECT_EQ(result(0),
              Outcome::connection_lost("no exit status from the task (mpirun exit code 0)", 255));
    start(1);
    go();
    m_launcher->end(Outcome::killed(SIGSEGV));
    EXPECT_EQ(result(1), Outcome::connection_lost("mpirun was killed by signal 11"));
}

// Abandoned: the launcher is killed, and ends its tasks.
TEST_F(StepTest, AbandonKillsTheLauncher) {
    start(1);
    go();
    starts(0);
    m_processes[0]->abandon();
    EXPECT_TRUE(m_launcher->abandoned);
    EXPECT_EQ(result(0), Outcome::killed(SIGKILL));
}

// --- the bound on the tasks' start (Engine::ready_bound) ---

const ReadyBound test_bound{std::chrono::seconds(9), "mpirun started no task there"};

// Past the bound, before every task is ready: each task not ready is its node's failure at once
// (one that said nothing in the engine's words), the launcher is killed, and a ready task never
// started; a task's line after that is the launcher's notice.
TEST_F(StepTest, TasksNotReadyWithinTheBoundFailAndTheLauncherIsKilled) {
    m_bound = test_bound;
    start(3);
    go();
    EXPECT_EQ(m_transport->deadline(), test::TestClock::now() + std::chrono::seconds(9));
    say(0, std::string(step::task_ready_marker));
    job::RendezvousResult listening{job::RendezvousOutcome::listening, "node2", "", 29500};
    m_launcher->say(
        test::task_line(2, std::string(job::rendezvous_marker) + job::rendezvous_line(listening)));
    test::TestClock::advance(std::chrono::milliseconds(8999));
    EXPECT_EQ(result(1), std::nullopt);
    EXPECT_TRUE(m_launcher->stopped.empty());
    test::TestClock::advance(std::chrono::milliseconds(1));
    EXPECT_EQ(result(1),
              Outcome::cannot_run("mpirun started no task there", job::preflight_exit_status));
    EXPECT_EQ(result(2),
              Outcome::cannot_run("mpirun started its task, which was not ready within 9 "
                                  "s: its preflight or its rendezvous check had not "
                                  "ended",
                                  job::preflight_exit_status));
    EXPECT_EQ(m_launcher->stopped, std::vector<int>{SIGKILL});
    EXPECT_EQ(m_outputs[1].out_closed, 1);
    EXPECT_EQ(m_outputs[1].err_closed, 1);
    EXPECT_EQ(result(0), std::nullopt);           // until the launcher ends
    m_launcher->say(test::frame(1, "late"));      // its node's output has closed
    say(1, std::string(step::task_ready_marker)); // too late: no go
    m_processes[0]->stop(SIGTERM);                // the loop's fail-fast
    m_launcher->end(Outcome::killed(SIGKILL));
    EXPECT_EQ(result(0), Outcome::not_started());
    EXPECT_EQ(m_delivered->calls, std::vector<std::string>{"deliver 15 "});
    EXPECT_EQ(m_notices, "colossalai: mpirun: " + test::frame(1, "late") + "\n");
    EXPECT_EQ(m_outputs[1].out, "");
    EXPECT_EQ(m_transport->deadline(), std::nullopt);
}

// The release, a stop, or the launcher's end before the bound: the bound is over, and nothing
// fails by it.
TEST_F(StepTest, NoBoundOnceReleasedStoppedOrEnded) {
    m_bound = test_bound;
    start(2);
    go();
    say(0, std::string(step::task_ready_marker));
    say(1, std::string(step::task_ready_marker));
    EXPECT_EQ(m_transport->deadline(), std::nullopt);
    test::TestClock::advance(std::chrono::seconds(60));
    EXPECT_EQ(result(0), std::nullopt);
    EXPECT_EQ(m_launcher->stopped, std::vector<int>{SIGALRM}); // the go alone

    m_processes.clear();
    m_outputs.clear();
    start(2);
    go();
    m_processes[0]->stop(SIGTERM);
    EXPECT_EQ(m_transport->deadline(), std::nullopt);
    test::TestClock::advance(std::chrono::seconds(60));
    m_launcher->end(Outcome::exited(0));
    EXPECT_EQ(result(1), Outcome::not_started());
}

// A launcher that ends by itself before every task is ready (Open MPI when a daemon's ssh
// failed): no job ran; each node says so, with the launcher's exit code.
TEST_F(StepTest, ALauncherEndedBeforeEveryTaskWasReadyStartedNoJob) {
    m_bound = test_bound;
    start(2);
    go();
    say(0, std::string(step::task_ready_marker));
    m_launcher->end(Outcome::exited(255));
    EXPECT_EQ(result(0),
              Outcome::connection_lost("mpirun exited with exit code 255 before the other tasks "
                                       "were ready"));
    EXPECT_EQ(result(1), Outcome::connection_lost(
                             "mpirun exited with exit code 255 before its task there was ready"));
}

// Without a bound (srun's tasks may wait in the queue), no deadline of the step's own.
TEST_F(StepTest, AnEngineWithoutABoundWaitsAsLongAsItTakes) {
    start(2);
    go();
    EXPECT_EQ(m_transport->deadline(), std::nullopt);
    test::TestClock::advance(std::chrono::hours(24));
    EXPECT_EQ(result(0), std::nullopt);
    EXPECT_TRUE(m_launcher->stopped.empty());
}

} // namespace
} // namespace colossalai::step
