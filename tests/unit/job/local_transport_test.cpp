#include "../recording_output.hpp"

#include "colossalai/job/local_transport.hpp"

#include <gtest/gtest.h>

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <csignal>
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

} // namespace
} // namespace colossalai::job
