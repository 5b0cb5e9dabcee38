// `check --launcher slurm`'s probe: the nodes it runs on, and each node's answer read from srun's
// output (both streams on one pipe), attributed by the rank each line of a task's carries, never
// by srun's task order. The task wrapper is the Slurm transport's, run by a real /bin/sh (and
// perl).

#include "../task_markers.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/slurm/srun_probe.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::slurm {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

using test::frame;
using test::rs;
using test::start_marker;
using test::task_line;

TEST(ProbeNodes, OneNodePerHostWithTheSameCommandAndNoPerNodeWord) {
    std::vector<job::NodeCommand> nodes =
        probe_nodes({"node2", "node1"}, {"/bin/sh", "-c", "echo hi"}, "/");
    ASSERT_EQ(nodes.size(), 2u);
    for (int rank = 0; rank < 2; ++rank) {
        EXPECT_EQ(nodes[rank].rank, rank);
        EXPECT_EQ(nodes[rank].argv, (Words{"/bin/sh", "-c", "echo hi"}));
        EXPECT_EQ(nodes[rank].working_directory, "/");
        EXPECT_FALSE(nodes[rank].words.has_value());
        EXPECT_FALSE(nodes[rank].local);
    }
    EXPECT_EQ(nodes[0].host, "node2");
    EXPECT_EQ(nodes[1].host, "node1");
    // The Slurm transport's srun: one task on each named node, in this order.
    Words argv = build_srun_command(nodes, {"-p", "debug"});
    EXPECT_EQ(Words(argv.begin(), argv.begin() + 9),
              (Words{"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1",
                     "--nodelist=node2,node1", "--kill-on-bad-exit=0", "--label", "-p", "debug"}));
}

// Each task's wrapper run for real as Slurm would run it on its node, its lines labelled with a
// task id that is not its rank (srun numbers tasks by its own node order), the two tasks' lines
// interleaved with srun's own: each node gets its program's exact bytes and status.
TEST(ReadProbeOutput, EachNodeGetsItsOwnTasksBytesAndStatus) {
    std::vector<job::NodeCommand> nodes =
        probe_nodes({"node-b", "node-a"},
                    {"/bin/sh", "-c",
                     "printf '@@ host\\n%s\\r\\nno end' \"$SLURMD_NODENAME\"; "
                     "[ \"$SLURMD_NODENAME\" = node-a ] && exit 3; exit 0"},
                    "/");
    std::string script = srun_task_script(nodes);
    auto run_task = [&](const std::string& node, const std::string& label) {
        exec::CaptureResult task =
            exec::capture({"env", "SLURM_JOB_ID=7", "SLURM_STEP_ID=0", "SLURMD_NODENAME=" + node,
                           "/bin/sh", "-c", script, "colossalai-task"},
                          30s, std::nullopt, 1024 * 1024, {.stderr_to = exec::Stderr::merge});
        EXPECT_TRUE(task.started) << task.error;
        std::string labelled;
        std::size_t begin = 0;
        for (std::size_t end; (end = task.output.find('\n', begin)) != std::string::npos;
             begin = end + 1) {
            labelled += label + task.output.substr(begin, end - begin + 1);
        }
        return labelled;
    };
    std::string a = run_task("node-a", "0: ");
    std::string b = run_task("node-b", " 1: ");
    ASSERT_NE(a.find(task_line(1, start_marker("7.0 node-a"))), std::string::npos) << a;
    std::string output = "srun: job 7 queued and waiting for resources\r\n" + a +
                         "srun: error: node-a: task 0: Exited with exit code 3\n" + b;

    ProbeOutput read = read_probe_output(output, nodes);
    ASSERT_EQ(read.answers.size(), 2u);
    EXPECT_TRUE(read.answers[0].started);
    EXPECT_EQ(read.answers[0].output, "@@ host\nnode-b\r\nno end");
    EXPECT_EQ(read.answers[0].exit_status, 0);
    EXPECT_TRUE(read.answers[1].started);
    EXPECT_EQ(read.answers[1].output, "@@ host\nnode-a\r\nno end");
    EXPECT_EQ(read.answers[1].exit_status, 3);
    EXPECT_FALSE(read.answers[1].failure.has_value());
    EXPECT_EQ(read.srun_lines, (Words{"srun: job 7 queued and waiting for resources",
                                      "srun: error: node-a: task 0: Exited with exit code 3"}));
}

// A node whose task never named itself has no answer; a task that names no node of the probe,
// lines before a task's start marker and slurmstepd's lines on a task's stderr count for
// nothing; a failed preflight is the node's; srun's control bytes are escaped.
TEST(ReadProbeOutput, OnlyAStartedTasksFramesMarkersAndFailureCount) {
    std::vector<job::NodeCommand> nodes = probe_nodes({"n0", "n1", "n2"}, {"/bin/sh"}, "/");
    std::string output =
        "2: " + frame(0, "early") + "\n" +                           // before its start marker
        "2: " + task_line(0, start_marker("7.0 n0")) + "\n" +        //
        "2: " + frame(0, "@@ sys") + "\n" +                          //
        "2: slurmstepd: error: *** STEP 7.0 ON n0 CANCELLED ***\n" + //
        "2: " + frame(0, "3.11", 'p') + "\n" +                       //
        "5: " + task_line(9, start_marker("7.0 other")) + "\n" +     // no such rank
        "5: " + frame(9, "stray") + "\n" +                           //
        "0: " + task_line(1, start_marker("7.0 n1")) + "\n" +        //
        "0: " + task_line(1, std::string(job::failed_check_marker) + "helper perl") + "\n" +
        "0: " + task_line(1, test::exit_marker("254")) + "\n" +
        "srun: error: \x1b[2Jnode2: Communication connection failure";
    ProbeOutput read = read_probe_output(output, nodes);
    ASSERT_EQ(read.answers.size(), 3u);
    EXPECT_TRUE(read.answers[0].started);
    EXPECT_EQ(read.answers[0].output, "@@ sys\n3.11");
    EXPECT_FALSE(read.answers[0].exit_status.has_value());
    ASSERT_TRUE(read.answers[1].failure.has_value());
    EXPECT_EQ(read.answers[1].failure->check, job::PreflightCheck::helper);
    EXPECT_EQ(read.answers[1].exit_status, 254);
    EXPECT_EQ(read.answers[1].output, "");
    EXPECT_FALSE(read.answers[2].started);
    EXPECT_EQ(read.answers[2].output, "");
    ASSERT_EQ(read.srun_lines.size(), 1u);
    EXPECT_EQ(read.srun_lines[0].find('\x1b'), std::string::npos) << read.srun_lines[0];
    EXPECT_NE(read.srun_lines[0].find("Communication connection failure"), std::string::npos);
}

} // namespace
} // namespace colossalai::slurm
