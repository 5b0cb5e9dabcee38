#include "../recording_output.hpp"
#include "files.hpp"

#include "colossalai/job/local_transport.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

// A local node's child process, started through the transport as the launcher's loop would.
namespace colossalai::job {
namespace {

using colossalai::test::RecordingOutput;

// Starts `command` and drives its process until it has a result, as the loop does.
Outcome run(LocalTransport& transport, const NodeCommand& command, RecordingOutput& output) {
    std::unique_ptr<Process> process = transport.start(command, output);
    process->go();
    while (!process->result()) {
        std::vector<pollfd> fds;
        process->collect_fds(fds);
        int ready = ::poll(fds.data(), fds.size(), 1000);
        EXPECT_GE(ready, 0);
        process->process_events(fds);
    }
    return *process->result();
}

std::vector<std::string> sorted_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

// The child's environment is the plan's snapshot of the launcher's (given to the transport)
// with the node's changes: -x / --env-file values replace or join it, the launcher's flags'
// variables win; nothing comes from the launcher process's own environ.
TEST(LocalTransport, TheChildGetsThePlansEnvironmentWithTheNodesChanges) {
    LocalTransport transport({"PATH=/usr/bin:/bin", "KEPT=1", "CHANGED=old", "PYTHONUNBUFFERED=1",
                              "NCCL_SOCKET_IFNAME=mine"},
                             std::chrono::milliseconds(1000));
    NodeCommand command;
    command.argv = {"env"};
    command.working_directory = "/";
    command.environment_changes.set = {{"ADDED", "x", "-x"}, {"CHANGED", "new", "-x"}};
    command.environment_changes.dropped = {"KEPT"}; // --env-exclude: a local node keeps its own
    command.flag_environment = {{"NCCL_SOCKET_IFNAME", "eth0"}};
    RecordingOutput output;
    EXPECT_EQ(run(transport, command, output), Outcome::exited(0)) << output.err;
    EXPECT_EQ(
        sorted_lines(output.out),
        (std::vector<std::string>{"ADDED=x", "CHANGED=new", "KEPT=1", "NCCL_SOCKET_IFNAME=eth0",
                                  "PATH=/usr/bin:/bin", "PYTHONUNBUFFERED=1"}));
}

// Drives `process` as the loop does until `done` holds or it has a result.
template <typename Done>
void drive(Process& process, Done done) {
    while (!done() && !process.result()) {
        std::vector<pollfd> fds;
        process.collect_fds(fds);
        EXPECT_GE(::poll(fds.data(), fds.size(), 1000), 0);
        process.process_events(fds);
    }
}

// A local job running `script` (sh), prepared and started as the loop does.
class LocalJob {
public:
    explicit LocalJob(const std::string& script) {
        NodeCommand command;
        command.argv = {"sh", "-c", script};
        command.working_directory = "/";
        process = m_transport.start(command, output);
    }
    // Starts it and waits until it has printed `ready`.
    void go_until_ready() {
        process->go();
        drive(*process, [&] { return output.out == "ready\n"; });
    }
    std::optional<Outcome> end() {
        drive(*process, [] { return false; });
        return process->result();
    }

    RecordingOutput output;
    std::unique_ptr<Process> process;

private:
    LocalTransport m_transport{{"PATH=/usr/bin:/bin"}, std::chrono::milliseconds(1000)};
};

// The local transport's stop sequence: stop(N) is N to the job's process group, kill() SIGKILL
// to it; before go() nothing starts.
TEST(LocalTransportStop, StopDeliversTheSignalToTheJobWhoseHandlerRuns) {
    LocalJob job("trap 'echo saved; exit 0' TERM; echo ready; while :; do sleep 0.1; done");
    job.go_until_ready();
    job.process->stop(SIGTERM);
    EXPECT_EQ(job.end(), Outcome::exited(0));
    EXPECT_EQ(job.output.out, "ready\nsaved\n");
}

TEST(LocalTransportStop, KillEndsAJobThatIgnoresTheStop) {
    LocalJob job("trap '' TERM; echo ready; while :; do sleep 0.1; done");
    job.go_until_ready();
    job.process->stop(SIGTERM);
    job.process->kill();
    EXPECT_EQ(job.end(), Outcome::killed(SIGKILL));
}

TEST(LocalTransportStop, AStopBeforeGoStartsNothing) {
    LocalJob job("echo started");
    job.process->kill();
    EXPECT_EQ(job.process->result(), Outcome::not_started());
    job.process->go(); // the loop does not call it then; if it did, still nothing starts
    EXPECT_EQ(job.process->result(), Outcome::not_started());
    EXPECT_EQ(job.output.out, "");
    EXPECT_EQ(job.output.out_closed, 1);
}

// A node's part in the rendezvous check of a launch that mixes this machine and remote hosts
// (LocalTransport's `rendezvous`), with a fake Python: it writes its PID to `pid`, prints the
// result lines of RDZV_SAY (`|` between lines) and sleeps RDZV_SLEEP seconds.
class LocalRendezvous : public ::testing::Test {
protected:
    LocalRendezvous() {
        m_python = m_dir.write("python",
                               "#!/bin/sh\n"
                               "echo $$ >\"$RDZV_PID\"\n"
                               "printf '%s\\n' \"$RDZV_SAY\" | tr '|' '\\n' | "
                               "sed 's/^/\\x1ecolossalai-rdzv /'\n"
                               "[ -z \"$RDZV_SLEEP\" ] || exec sleep \"$RDZV_SLEEP\"\n",
                               0755);
    }

    // Node `rank` of two (node 0 listens) with a probe that says `say`.
    std::unique_ptr<Process> start(int rank, const std::string& say, bool sleeps = false) {
        RendezvousPlan plan;
        plan.python = m_python.string();
        plan.token = "0123456789abcdef";
        plan.listener = 0;
        plan.address = "node0";
        plan.port = 29500;
        plan.nodes = 2;
        m_transport = std::make_unique<LocalTransport>(
            std::vector<std::string>{"PATH=/usr/bin:/bin", "RDZV_SAY=" + say,
                                     "RDZV_PID=" + (m_dir / "pid").string(),
                                     std::string("RDZV_SLEEP=") + (sleeps ? "60" : "")},
            std::chrono::milliseconds(1000), plan,
            [this](std::string_view text) { m_notices += text; });
        NodeCommand command;
        command.argv = {"sh", "-c", "echo started"};
        command.working_directory = "/";
        command.rank = rank;
        command.host = "here";
        return m_transport->start(command, output);
    }

    pid_t probe_pid() const {
        pid_t pid = 0;
        std::ifstream(m_dir / "pid") >> pid;
        return pid;
    }

    RecordingOutput output;
    std::string m_notices;

private:
    test::TempDir m_dir{"local-rendezvous"};
    std::filesystem::path m_python;
    std::unique_ptr<LocalTransport> m_transport;
};

// The listener takes part in the listen turn only; it is ready again once it listens, runs until
// go(), which ends it (its port is the job's) before the job starts.
TEST_F(LocalRendezvous, TheListenerRunsFromItsTurnUntilGo) {
    std::unique_ptr<Process> node = start(0, "listening - - 29500", true);
    EXPECT_FALSE(node->check_rendezvous(RendezvousTurn::connect));
    ASSERT_TRUE(node->check_rendezvous(RendezvousTurn::listen));
    EXPECT_FALSE(node->check_rendezvous(RendezvousTurn::listen)); // once
    drive(*node, [&] { return node->ready(); });
    ASSERT_FALSE(node->result()) << describe(*node->result());
    pid_t listener = probe_pid();
    ASSERT_GT(listener, 0);
    EXPECT_EQ(::kill(listener, 0), 0); // it still listens
    node->go();
    EXPECT_NE(::kill(listener, 0), 0); // ended and reaped
    drive(*node, [] { return false; });
    EXPECT_EQ(node->result(), Outcome::exited(0));
    EXPECT_EQ(output.out, "started\n");
}

// A connecting node's failure is its result (254), and nothing starts.
TEST_F(LocalRendezvous, AFailedConnectionIsTheNodesResult) {
    std::unique_ptr<Process> node = start(1, "refused node0 10.0.0.7 29500");
    EXPECT_FALSE(node->check_rendezvous(RendezvousTurn::listen));
    ASSERT_TRUE(node->check_rendezvous(RendezvousTurn::connect));
    EXPECT_FALSE(node->ready());
    drive(*node, [] { return false; });
    EXPECT_EQ(node->result(),
              Outcome::cannot_run("'node0' (10.0.0.7) port 29500: connection refused (nothing "
                                  "listens there: does the name lead this node to another "
                                  "machine than the master?)",
                                  preflight_exit_status));
    node->go(); // the loop does not call it then; if it did, nothing starts
    EXPECT_EQ(output.out, "");
    EXPECT_EQ(output.out_closed, 1);
}

// A warning is one notice naming the node; the answer passes.
TEST_F(LocalRendezvous, AWarningIsOneNoticeAndTheAnswerPasses) {
    std::unique_ptr<Process> node =
        start(1, "own-name-loopback here 127.0.1.1 - warn|answered node0 10.0.0.7 29500");
    ASSERT_TRUE(node->check_rendezvous(RendezvousTurn::connect));
    drive(*node, [&] { return node->ready(); });
    EXPECT_FALSE(node->result());
    EXPECT_EQ(m_notices, "colossalai: warning: here: the node's own name 'here' resolves to the "
                         "loopback address 127.0.1.1 on the node (gloo uses the interface it was "
                         "given instead)\n");
}

// A probe that ends without a result (not Python 3.6 or newer) fails the node.
TEST_F(LocalRendezvous, NoResultFailsTheNode) {
    std::unique_ptr<Process> node = start(1, "");
    ASSERT_TRUE(node->check_rendezvous(RendezvousTurn::connect));
    drive(*node, [] { return false; });
    EXPECT_EQ(node->result(),
              Outcome::cannot_run(describe_no_rendezvous_result(), preflight_exit_status));
}

// A stop while the listener runs ends it: not started.
TEST_F(LocalRendezvous, AStopDuringTheCheckEndsTheProbe) {
    std::unique_ptr<Process> node = start(0, "listening - - 29500", true);
    ASSERT_TRUE(node->check_rendezvous(RendezvousTurn::listen));
    drive(*node, [&] { return node->ready(); });
    pid_t listener = probe_pid();
    node->stop(SIGTERM);
    EXPECT_EQ(node->result(), Outcome::not_started());
    EXPECT_NE(::kill(listener, 0), 0);
}

} // namespace
} // namespace colossalai::job
