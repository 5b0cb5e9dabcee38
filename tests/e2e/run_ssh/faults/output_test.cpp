// Output that never holds a node back, over SSH (issue #8): a progress bar on one node never
// holds another node's flood, and a launcher whose stdout nobody reads for longer than the
// node wrappers' silence limit keeps its remote jobs alive and loses no byte.

#include "capture.hpp"
#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <string>
#include <thread>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshOutput : public SharedSshCluster<2> {};

// The deadlock of issue #8 across two hosts: node1 shows a bar far past the line buffer (no
// newline) and waits for node2, which first prints 2 MB of warnings on the same stream.
TEST_F(SshOutput, ABarOnOneNodeNeverHoldsAFloodOnAnother) {
    FaultJob job(cluster(), "bar");
    job.behave("0", "i=0\nwhile [ $i -lt 2000 ]; do printf '\\r%4d/2000 |%s|' $i "
                    "'##########################' >&2; i=$((i+1)); done\n"
                    "while [ ! -e \"$state/record/1.ready\" ]; do sleep 0.05; done\n"
                    "printf '\\r2000/2000 done\\n' >&2\n");
    job.behave("1", "pad=$(printf '%090d' 0)\ni=0\nwhile [ $i -lt 20000 ]; do echo \"warning $i "
                    "$pad\" >&2; i=$((i+1)); done\nready\n");
    RunResult result = job.run("node1,node2");
    ASSERT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_code, 0) << result.err.substr(0, 2000);
    size_t warnings = 0;
    for (const std::string& line : lines_of(result.err)) {
        warnings += line.rfind("node2: warning ", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(warnings, 20000u);
    EXPECT_NE(result.err.find("\nnode1: 2000/2000 done\n"), std::string::npos);
    EXPECT_EQ(result.err.find('\r'), std::string::npos);
    job.expect_none_left(10s);
}

// A pager left paused for 15 s, 7 times the node wrappers' silence limit (2 x --ssh-timeout):
// the launcher's loop never blocks on its output, so the heartbeats go on and the jobs live;
// they wait in write() (their SSH windows are full) and every byte arrives once reading
// resumes.
TEST_F(SshOutput, AStdoutNobodyReadsFor15sKeepsTheRemoteJobsAndLosesNothing) {
    FaultJob job(cluster(), "paused");
    // Builtins only: a fork per line made the job itself take 150 s of a 2-core machine.
    job.behave("all", "pad=$(printf '%0100d' 0)\ni=0\nwhile [ $i -lt 40000 ]; do echo \"rank "
                      "$rank line $i $pad\"; i=$((i+1)); done\n");
    OutputCapture output(false);
    Background launcher(job.command("node1,node2", {"--ssh-timeout", "2"}), job.options(),
                        output.write_fd(), output.write_fd());
    output.close_write();
    std::this_thread::sleep_for(15s);
    EXPECT_FALSE(launcher.wait(0ms).has_value()) << "the launcher ended while nobody read";
    EXPECT_TRUE(process_alive(job.recorded_pid(0)) || job.recorded_pid(0) == 0);
    output.read_to_end();
    EXPECT_EQ(exit_code_of(launcher, 60s), 0);
    size_t lines[2] = {0, 0};
    for (const std::string& line : lines_of(output.text())) {
        lines[0] += line.rfind("node1: rank 0 line ", 0) == 0 ? 1 : 0;
        lines[1] += line.rfind("node2: rank 1 line ", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(lines[0], 40000u);
    EXPECT_EQ(lines[1], 40000u);
    EXPECT_NE(output.text().find(summary_block({"node1: success", "node2: success"})),
              std::string::npos)
        << output.text().substr(output.text().size() > 2000 ? output.text().size() - 2000 : 0);
    job.expect_none_left(10s);
}

// Ctrl-C while nobody reads: every remote job still stops within the grace.
TEST_F(SshOutput, CtrlCWhileNobodyReadsStillStopsEveryRemoteJob) {
    FaultJob job(cluster(), "pausedint");
    job.behave("all",
               "pad=$(printf '%0100d' 0)\nready\nwhile :; do echo \"rank $rank $pad\"; done\n");
    OutputCapture output(false);
    Background launcher(job.command("node1,node2", {"--ssh-timeout", "2", "--kill-grace", "2"}),
                        job.options(), output.write_fd(), output.write_fd());
    output.close_write();
    ASSERT_TRUE(job.ready(0));
    ASSERT_TRUE(job.ready(1));
    std::this_thread::sleep_for(1s); // the output is full by now
    launcher.signal(SIGINT);
    EXPECT_TRUE(eventually(
        [&] {
            for (const auto& [host, pid] : job.processes()) {
                if (host != 0) {
                    return false;
                }
            }
            return true;
        },
        20s))
        << "processes of the job still run on a host";
    output.read_to_end();
    EXPECT_EQ(exit_code_of(launcher, 30s), 130);
    EXPECT_NE(output.text().find("====== Training on All Nodes ====="), std::string::npos);
}

// Ctrl-Z for twice the wrappers' silence limit: the launcher tells every wrapper before it
// stops (PAUSE), so the remote jobs live on; after `fg` the job ends normally.
// Over either --ssh-client (the parameter).
class SshCtrlZ : public SharedSshCluster<2>, public ::testing::WithParamInterface<std::string> {};

TEST_P(SshCtrlZ, CtrlZKeepsTheRemoteJobsAliveUntilTheLauncherResumes) {
    FaultJob job(cluster(), "ctrlz-" + GetParam());
    job.behave("all", "ready\nawait go\necho \"rank $rank finished\"\n");
    std::unique_ptr<Background> launcher =
        job.start("node1,node2", {"--ssh-client", GetParam(), "--ssh-timeout", "2"});
    ASSERT_TRUE(job.ready(0)) << job.err();
    ASSERT_TRUE(job.ready(1)) << job.err();
    launcher->signal(SIGTSTP);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    std::this_thread::sleep_for(8s); // 2 x the silence limit of 2 x --ssh-timeout
    job.release("go");
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    Words out = lines_of(job.out());
    std::sort(out.begin(), out.end());
    EXPECT_EQ(out, Words({"node1: rank 0 finished", "node2: rank 1 finished"}));
    EXPECT_EQ(job.err(), "colossalai: stopped (SIGTSTP); the jobs keep running and their output "
                         "waits; 'fg' resumes\ncolossalai: resumed\n" +
                             summary_block({"node1: success", "node2: success"}));
    job.expect_none_left(10s);
}

INSTANTIATE_TEST_SUITE_P(Clients, SshCtrlZ, ::testing::Values("libssh", "openssh"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

class SshOutputThree : public SharedSshCluster<3> {};

// Three remote nodes with progress bars, the launcher's output a pipe: each state of each bar
// arrives prefixed while its line is still open — every node waits until the test has seen its
// state before it prints the next one, so a launcher that held a bar until its newline could
// never end.
TEST_F(SshOutputThree, EachStateOfEveryBarArrivesWhileItsLineIsOpen) {
    FaultJob job(cluster(), "bars");
    job.behave("all", "for i in 1 2 3; do printf '\\rrank %s step %s' $rank $i >&2\n"
                      "  await seen.$rank.$i; done\nprintf '\\rrank %s finished\\n' $rank >&2\n");
    OutputCapture output(false);
    Background launcher(job.command("node1,node2,node3", {}), job.options(), output.write_fd(),
                        output.write_fd());
    output.close_write();
    for (int step = 1; step <= 3; ++step) {
        for (int rank = 0; rank < 3; ++rank) {
            std::string state = "node" + std::to_string(rank + 1) + ": rank " +
                                std::to_string(rank) + " step " + std::to_string(step) + "\n";
            ASSERT_TRUE(output.read_until(state)) << "not seen: " << state << output.text();
        }
        for (int rank = 0; rank < 3; ++rank) {
            job.release("seen." + std::to_string(rank) + "." + std::to_string(step));
        }
    }
    output.read_to_end();
    EXPECT_EQ(exit_code_of(launcher, 60s), 0) << output.text();
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_NE(output.text().find("node" + std::to_string(rank + 1) + ": rank " +
                                     std::to_string(rank) + " finished\n"),
                  std::string::npos);
    }
    EXPECT_EQ(output.text().find('\r'), std::string::npos);
    job.expect_none_left(10s);
}

} // namespace
} // namespace colossalai::test
