// The Slurm transport's transitions (start, output, stop, kill, lost) with a fake srun and a fake
// scancel behind its Spawn seam: each child is a Process the test drives (what srun prints, when
// it ends, what it was sent), so every step of the stop sequence is checked without Slurm. The
// real srun and scancel: tests/e2e/run_slurm/.

#include "../fake_child.hpp"
#include "../recording_output.hpp"
#include "../relayed.hpp"
#include "../task_markers.hpp"

#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::slurm {
namespace {

using job::Outcome;
using output::Stream;
using test::Child;
using test::FakeChild;
using test::RecordingOutput;
using Words = std::vector<std::string>;

class SlurmTransportTest : public ::testing::Test {
protected:
    // srun's labelled lines of its tasks, as the wrappers write them (step/task_lines.hpp): each
    // carries its node's rank, which a task's start marker gives it (Slurm's task order is not
    // the plan's).
    std::string start_marker(int task, int rank, const std::string& step = "7.0",
                             const std::string& node = "") {
        m_rank_of[task] = rank;
        return std::to_string(task) + ": " +
               test::task_line(
                   rank,
                   test::start_marker(step + " " +
                                      (node.empty() ? "node" + std::to_string(rank + 1) : node)));
    }
    std::string exit_marker(int task, int status) {
        return std::to_string(task) + ": " +
               test::task_line(m_rank_of.at(task), test::exit_marker(std::to_string(status)));
    }
    // A frame of the relay's: `text` and how it ended (`n` newline, `p` none).
    std::string frame(int task, const std::string& text, char end = 'n') {
        return std::to_string(task) + ": " + test::frame(m_rank_of.at(task), text, end);
    }

    // A plan of `count` nodes node1..; srun allocates them when `allocates`.
    void start(std::size_t count = 2, bool allocates = false) {
        m_plan.nodes.clear();
        for (std::size_t rank = 0; rank < count; ++rank) {
            job::NodeCommand node;
            node.host = allocates ? "(node " + std::to_string(rank) + ")"
                                  : "node" + std::to_string(rank + 1);
            node.rank = static_cast<int>(rank);
            node.argv = {"torchrun", "--node_rank=" + std::to_string(rank), "train.py"};
            node.words = job::NodeWords{1, std::nullopt};
            node.working_directory = "/work/job";
            node.environment_changes.set = {{"SET_BY_X", "1", "-x"}};
            m_plan.nodes.push_back(node);
        }
        m_plan.launcher_environment = {"PATH=/usr/bin:/bin", "HOME=/root"};
        m_plan.launch = run::SrunLaunch{{"-p", "gpu"}, allocates};
        m_outputs.resize(count);
        m_transport = std::make_unique<SlurmTransport>(
            m_plan, std::get<run::SrunLaunch>(m_plan.launch),
            [this](std::string_view text) { m_notices += text; },
            [this](const exec::SpawnRequest& request, output::NodeOutput& output) {
                auto child = std::make_shared<Child>();
                child->request = request;
                child->output = &output;
                m_children.push_back(child);
                return std::make_unique<FakeChild>(child);
            });
        for (std::size_t rank = 0; rank < count; ++rank) {
            m_processes.push_back(m_transport->start(m_plan.nodes[rank], m_outputs[rank]));
        }
    }

    void go() {
        for (auto& process : m_processes) {
            process->go();
        }
    }

    // One turn of the launcher's loop: the transport (srun and a scancel), then every node
    // without a result.
    void turn() {
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
    }

    std::optional<Outcome> result(std::size_t rank) {
        turn();
        return m_processes[rank]->result();
    }

    Child& srun() { return *m_children.at(0); }
    // The scancels started so far, after srun.
    std::vector<std::shared_ptr<Child>> scancels() const {
        return {m_children.begin() + (m_children.empty() ? 0 : 1), m_children.end()};
    }

    // Both tasks started (task 0 on node2 is rank 1, task 1 on node1 rank 0: Slurm's order is
    // not the plan's).
    void tasks_start() {
        srun().say(start_marker(0, 1));
        srun().say(start_marker(1, 0));
        srun().say(start_marker(0, 1), Stream::err);
        srun().say(start_marker(1, 0), Stream::err);
    }
    // Both tasks said they are ready (their checks passed): the go, scancel of SIGUSR1 to the
    // step, which ends at once and is forgotten (scancels() then holds the stop's only).
    void let_go() {
        for (int task : {0, 1}) {
            srun().say(std::to_string(task) + ": " +
                       test::task_line(m_rank_of.at(task), std::string(step::task_ready_marker)));
        }
        turn();
        ASSERT_EQ(scancels().size(), 1u);
        EXPECT_EQ(scancels()[0]->request.argv, (Words{"scancel", "--signal=USR1", "7.0"}));
        scancels()[0]->end(Outcome::exited(0));
        turn();
        m_children.erase(m_children.begin() + 1);
    }
    void task_ends(int task, int status) {
        srun().say(exit_marker(task, status));
        srun().say(exit_marker(task, status), Stream::err);
    }

    std::map<int, int> m_rank_of; // srun's task -> the node rank its start marker said
    run::Plan m_plan;
    std::vector<RecordingOutput> m_outputs;
    std::unique_ptr<SlurmTransport> m_transport;
    std::vector<std::unique_ptr<job::Process>> m_processes;
    std::vector<std::shared_ptr<Child>> m_children;
    std::string m_notices;
};

// --- start ---

TEST_F(SlurmTransportTest, GoStartsOneSrunBuiltFromThePlan) {
    start();
    EXPECT_TRUE(m_children.empty()); // nothing before every node is ready
    go();
    ASSERT_EQ(m_children.size(), 1u);
    EXPECT_EQ(srun().request.argv, srun_command(m_plan, std::get<run::SrunLaunch>(m_plan.launch)));
    EXPECT_EQ(srun().request.working_directory, "/work/job");
    EXPECT_EQ(srun().request.environment,
              (Words{"PATH=/usr/bin:/bin", "HOME=/root", "SET_BY_X=1"}));
}

TEST_F(SlurmTransportTest, StoppedBeforeGoNothingStarts) {
    start();
    m_processes[1]->stop(SIGINT);
    go();
    EXPECT_TRUE(m_children.empty());
    for (std::size_t rank = 0; rank < 2; ++rank) {
        EXPECT_EQ(result(rank), Outcome::not_started());
        EXPECT_EQ(m_outputs[rank].out_closed, 1);
    }
}

TEST(SlurmTransport, ASrunThatCannotBeStartedFailsEveryNode) {
    run::Plan plan;
    plan.nodes.resize(1);
    plan.nodes[0].argv = {"torchrun", "t.py"};
    plan.nodes[0].working_directory = "/";
    plan.launcher_environment = {"PATH=/nonexistent"};
    std::string notices;
    SlurmTransport transport(plan, run::SrunLaunch{},
                             [&](std::string_view text) { notices += text; });
    RecordingOutput output;
    std::unique_ptr<job::Process> process = transport.start(plan.nodes[0], output);
    process->go();
    std::optional<Outcome> result = process->result();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->kind(), Outcome::Kind::cannot_run);
    EXPECT_EQ(result->status(), 127);
    EXPECT_NE(result->reason().find("srun"), std::string::npos) << result->reason();
    EXPECT_NE(notices.find("colossalai: srun: "), std::string::npos);
}

// --- output ---

TEST_F(SlurmTransportTest, EachTasksFramesReachItsNodeAsTheJobWroteThem) {
    start();
    go();
    tasks_start();
    srun().say(frame(1, "rank 0 \r", 'n'));                 // a line ending in \r\n
    srun().say(frame(0, "bar 1%\r", 'p'));                  // a bar's state, at once
    srun().say(frame(0, std::string("n\0l \xff", 5), 'n')); // NUL, invalid UTF-8
    srun().say(frame(1, "warn", 'N'), Stream::err);
    srun().say("srun: error: node2: task 0: Exited with exit code 3", Stream::err);
    srun().say("0: slurmstepd: error: *** STEP 7.0 ON node2 CANCELLED ***", Stream::err);
    task_ends(0, 3);
    task_ends(1, 0);
    srun().end(Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::exited(0));
    EXPECT_EQ(result(1), Outcome::exited(3));
    EXPECT_EQ(m_outputs[0].out, "rank 0 \r\n");
    EXPECT_EQ(m_outputs[0].err, "warn\n");
    EXPECT_EQ(m_outputs[1].out, "bar 1%\r" + std::string("n\0l \xff\n", 6));
    EXPECT_EQ(m_outputs[1].err, "slurmstepd: error: *** STEP 7.0 ON node2 CANCELLED ***\n");
    EXPECT_EQ(m_notices, "colossalai: srun: error: node2: task 0: Exited with exit code 3\n");
    for (const RecordingOutput& output : m_outputs) {
        EXPECT_EQ(output.out_closed, 1);
        EXPECT_EQ(output.err_closed, 1);
    }
}

// Each node's frames carry its rank: srun's output, both tasks' frames interleaved line by line,
// reaches each node byte for byte however the reads of srun's pipe split or merge it (one byte at
// a time, across frames, in reads of more than 64 KiB), with lines of the job's over 64 KiB.
TEST_F(SlurmTransportTest, FramesSurviveReadsSplitOrMergedAnywhere) {
    // Rank 0 is srun's task 1, rank 1 its task 0 (tasks_start()).
    test::TwoNodesRelayed relayed = test::two_nodes_relayed({"1: ", "0: "});
    const std::string& output = relayed.output;
    for (std::size_t chunk : test::read_sizes(output.size())) {
        SCOPED_TRACE(chunk);
        m_processes.clear();
        m_children.clear();
        m_outputs.clear();
        m_transport.reset();
        start();
        go();
        tasks_start();
        for (std::size_t at = 0; at < output.size(); at += chunk) {
            srun().output->write(Stream::out, std::string_view(output).substr(at, chunk));
        }
        task_ends(0, 0);
        task_ends(1, 0);
        srun().end(Outcome::exited(0));
        EXPECT_EQ(result(0), Outcome::exited(0));
        EXPECT_EQ(result(1), Outcome::exited(0));
        EXPECT_TRUE(m_outputs[0].out == relayed.bytes[0]) << m_outputs[0].out.size();
        EXPECT_TRUE(m_outputs[1].out == relayed.bytes[1]) << m_outputs[1].out.size();
        EXPECT_EQ(m_notices, "");
    }
}

TEST_F(SlurmTransportTest, ALineOfATaskThatHasNotStartedIsANotice) {
    start(1);
    go();
    srun().say("0: colossalai: the Slurm node 'x' is not one of the run's hosts", Stream::err);
    srun().end(Outcome::exited(127));
    EXPECT_EQ(m_notices,
              "colossalai: srun: task 0: colossalai: the Slurm node 'x' is not one of the run's "
              "hosts\n");
    EXPECT_EQ(result(0),
              Outcome::connection_lost(
                  "srun exited with exit code 127 before its task there was ready", 127));
}

TEST_F(SlurmTransportTest, TheTasksOfAnAllocationSrunMadeNameTheirNodes) {
    start(2, true);
    go();
    srun().say(start_marker(0, 0, "7.0", "gpu7"));
    srun().say(start_marker(0, 0, "7.0", "gpu7"), Stream::err);
    EXPECT_EQ(m_outputs[0].prefix, "gpu7: ");
    EXPECT_EQ(m_processes[0]->host(), "gpu7");
    EXPECT_EQ(m_processes[1]->host(), std::nullopt); // not yet
    srun().say(start_marker(1, 1, "7.0", "gpu\x1b[2J9"));
    EXPECT_EQ(m_processes[1]->host(), "gpu\\x1b[2J9"); // no control bytes in a summary line
    EXPECT_EQ(m_outputs[1].prefix, "gpu\\x1b[2J9: ");
}

// --- stop, kill, lost ---

// Issue #24: waiting for resources (queued, or a step of a busy allocation), no task has named
// the step: srun gets SIGTERM, which cancels its request, and every task is reported not started.
TEST_F(SlurmTransportTest, AStopWhileSrunWaitsCancelsTheRequest) {
    start();
    go();
    srun().say("srun: job 13 queued and waiting for resources", Stream::err);
    m_processes[0]->stop(SIGINT);
    m_processes[1]->stop(SIGINT);
    m_processes[0]->kill(); // the second Ctrl-C: srun already ends its request
    EXPECT_EQ(srun().stopped, std::vector<int>{SIGTERM});
    EXPECT_TRUE(scancels().empty());
    srun().say("srun: Job allocation 13 has been revoked", Stream::err);
    srun().end(Outcome::exited(1));
    EXPECT_EQ(result(0), Outcome::not_started());
    EXPECT_EQ(result(1), Outcome::not_started());
}

// Issue #24: once the step runs, a stop is the signal to every process of the step (scancel),
// once per signal; the job handles it and each task reports its job's status.
TEST_F(SlurmTransportTest, AStopOnceTheStepRunsIsScancelOfThatSignal) {
    start();
    go();
    tasks_start();
    m_processes[0]->stop(SIGINT);
    m_processes[1]->stop(SIGINT); // the same stop, from the other node
    ASSERT_EQ(scancels().size(), 1u);
    EXPECT_EQ(scancels()[0]->request.argv, (Words{"scancel", "--signal=INT", "7.0"}));
    EXPECT_EQ(scancels()[0]->request.environment, srun().request.environment); // SLURM_CONF...
    EXPECT_TRUE(srun().stopped.empty());
    m_processes[0]->stop(SIGTERM); // waits for the first scancel
    EXPECT_EQ(scancels().size(), 1u);
    scancels()[0]->end(Outcome::exited(0));
    turn();
    ASSERT_EQ(scancels().size(), 2u);
    EXPECT_FALSE(scancels()[0]->alive);
    EXPECT_EQ(scancels()[1]->request.argv, (Words{"scancel", "--signal=TERM", "7.0"}));
    scancels()[1]->end(Outcome::exited(0));
    srun().say(frame(0, "checkpoint written", 'n'));
    task_ends(0, 0);   // rank 1 handled it
    task_ends(1, 143); // rank 0 died of the TERM the launcher sent
    srun().end(Outcome::exited(0));
    EXPECT_EQ(result(1), Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::killed(SIGTERM));
    EXPECT_EQ(m_outputs[1].out, "checkpoint written\n");
    EXPECT_EQ(m_notices, "");
}

TEST_F(SlurmTransportTest, AStatusOf128PlusNIsTheJobsOwnWhenNothingWasSent) {
    start(1);
    go();
    srun().say(start_marker(0, 0));
    task_ends(0, 143);
    srun().end(Outcome::exited(143));
    EXPECT_EQ(result(0), Outcome::exited(143));
}

// The barrier: no task's job starts until every task is ready; then the go reaches every process
// of the step (scancel --signal=USR1, SIGUSR1 being the one signal the wrappers take for it). A
// task stopped before the go never started its job, whatever its start marker (which names the
// step at once) said: `not started`.
TEST_F(SlurmTransportTest, TheGoComesOnceEveryTaskIsReadyAndATaskStoppedBeforeItIsNotStarted) {
    start();
    go();
    tasks_start();
    srun().say("0: " + test::task_line(1, std::string(step::task_ready_marker)));
    turn();
    EXPECT_TRUE(scancels().empty()); // one task is not ready yet
    srun().say("1: " + test::task_line(0, std::string(job::failed_check_marker) + "command"));
    task_ends(1, job::preflight_exit_status);
    m_processes[0]->stop(SIGTERM); // fail-fast
    ASSERT_EQ(scancels().size(), 1u);
    EXPECT_EQ(scancels()[0]->request.argv, (Words{"scancel", "--signal=TERM", "7.0"}));
    scancels()[0]->end(Outcome::exited(0));
    srun().end(Outcome::exited(0)); // rank 1's wrapper ended at the stop, no status
    EXPECT_EQ(result(0)->kind(), Outcome::Kind::cannot_run);
    EXPECT_EQ(result(1), Outcome::not_started());
}

// After the grace: SIGKILL to every process of the step; a task whose wrapper died with its job
// has no status, and was killed.
TEST_F(SlurmTransportTest, KillIsScancelOfSigkill) {
    start();
    go();
    tasks_start();
    let_go();
    m_processes[0]->stop(SIGTERM);
    scancels()[0]->end(Outcome::exited(0));
    turn();
    m_processes[0]->kill();
    ASSERT_EQ(scancels().size(), 2u);
    EXPECT_EQ(scancels()[1]->request.argv, (Words{"scancel", "--signal=KILL", "7.0"}));
    task_ends(1, 0); // rank 0 ended cleanly before the kill
    srun().end(Outcome::exited(0));
    EXPECT_EQ(result(0), Outcome::exited(0));
    EXPECT_EQ(result(1), Outcome::killed(SIGKILL));
}

// The launcher ends while a scancel still runs (srun and every task ended first): destroying
// the transport abandons that scancel, whose output it closes, so the output must outlive it. CI's
// UndefinedBehaviorSanitizer build saw the output destroyed first (SlurmLaunch
// .ATaskWhosePreflightFailsStartsNothing); under it this test fails the same way every time.
TEST_F(SlurmTransportTest, AScancelStillRunningWhenTheLauncherEndsIsAbandonedIntoALiveOutput) {
    start();
    go();
    tasks_start();
    m_processes[0]->stop(SIGTERM);
    ASSERT_EQ(scancels().size(), 1u);
    std::shared_ptr<Child> scancel = scancels()[0];
    scancel->abandoned_when_destroyed = true;
    scancel->say("scancel: still waiting for the controller", Stream::err);
    m_processes.clear();
    m_transport.reset();
    EXPECT_TRUE(scancel->abandoned);
    EXPECT_FALSE(scancel->alive);
    EXPECT_EQ(scancel->result, Outcome::killed(SIGKILL));
}

// A scancel that fails: said once, and srun ends the step instead (its tasks get SIGKILL).
TEST_F(SlurmTransportTest, AFailedScancelStopsSrunInstead) {
    start();
    go();
    tasks_start();
    let_go();
    m_processes[0]->stop(SIGTERM);
    scancels()[0]->say("scancel: error: Kill job error on job id 7.0: Access denied", Stream::err);
    scancels()[0]->end(Outcome::exited(1));
    turn();
    EXPECT_EQ(m_notices, "colossalai: scancel --signal=TERM 7.0 failed (exit code 1: scancel: "
                         "error: Kill job error on job id 7.0: Access denied); stopping srun "
                         "instead (its tasks get SIGKILL)\n");
    EXPECT_EQ(srun().stopped, std::vector<int>{SIGTERM});
    m_processes[0]->kill(); // still to the step; when scancel cannot run either, srun is killed
    ASSERT_EQ(scancels().size(), 2u);
    scancels()[1]->end(Outcome::cannot_run("cannot execute 'scancel': not found"));
    turn();
    EXPECT_EQ(srun().stopped, (std::vector<int>{SIGTERM, SIGKILL}));
    srun().end(Outcome::exited(1));
    EXPECT_EQ(result(0), Outcome::killed(SIGKILL));
    EXPECT_EQ(result(1), Outcome::killed(SIGKILL));
}

// A stop whose scancel finds the step ended meanwhile (the last task exited as the signal went
// out): nothing failed, so srun is left to end by itself and each task keeps its own status. A
// kill whose scancel finds the step gone still kills srun: the escalation always ends.
TEST_F(SlurmTransportTest, AStopWhoseScancelFindsTheStepGoneLeavesSrunToEnd) {
    start();
    go();
    tasks_start();
    m_processes[0]->stop(SIGTERM);
    scancels()[0]->say("scancel: error: Kill job error on job step id 7: Invalid job id specified",
                       Stream::err);
    scancels()[0]->end(Outcome::exited(225));
    turn();
    EXPECT_EQ(m_notices, "");
    EXPECT_TRUE(srun().stopped.empty());
    m_processes[0]->kill();
    ASSERT_EQ(scancels().size(), 2u);
    scancels()[1]->say("scancel: error: Kill job error on job step id 7: Invalid job id specified",
                       Stream::err);
    scancels()[1]->end(Outcome::exited(225));
    turn();
    EXPECT_EQ(srun().stopped, std::vector<int>{SIGKILL});
    EXPECT_NE(m_notices.find("killing srun instead"), std::string::npos) << m_notices;
}

// Lost: a srun that even SIGKILL to the step does not end is killed itself (Slurm ends the step).
TEST_F(SlurmTransportTest, AbandonKillsSrun) {
    start();
    go();
    tasks_start();
    let_go();
    m_processes[1]->abandon();
    EXPECT_TRUE(srun().abandoned);
    EXPECT_EQ(result(0), Outcome::killed(SIGKILL));
    EXPECT_EQ(result(1), Outcome::killed(SIGKILL));
}

// Lost without a stop: srun died under the running tasks.
TEST_F(SlurmTransportTest, ASrunThatDiesLosesItsTasks) {
    start();
    go();
    tasks_start();
    srun().end(Outcome::killed(SIGKILL));
    EXPECT_EQ(result(0), Outcome::connection_lost("srun was killed by signal 9"));
    EXPECT_EQ(m_outputs[0].out_closed, 1);
}

} // namespace
} // namespace colossalai::slurm
