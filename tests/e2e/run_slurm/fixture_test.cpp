// The test Slurm cluster itself, and `colossalai run` inside its allocations: the nodes run
// real slurmd, srun reaches every node, salloc hands the launcher SLURM_JOB_NODELIST, and a
// killed srun leaves no task behind (Slurm ends the step).

#include "slurm_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

class SlurmFixture : public SharedSlurmCluster<2> {};

TEST_F(SlurmFixture, SrunRunsOneTaskOnEveryNode) {
    RunResult result = cluster().run_on_controller({"srun", "-N2", "hostname"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(result.out == "node1\nnode2\n" || result.out == "node2\nnode1\n") << result.out;
}

TEST_F(SlurmFixture, SallocGivesTheLauncherTheAllocationsNodes) {
    TempDir job("colossalai-slurm-job");
    RunOptions options;
    options.cwd = job.path();
    RunResult result =
        cluster().run_on_controller({"salloc", "-N2", binary().string(), "run", "--dry-run",
                                     "--nproc_per_node", "1", "train.py"},
                                    options);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("colossalai: using the 2 hosts of the Slurm allocation "
                              "(SLURM_JOB_NODELIST=node[1-2])\n"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.out.find("[node 1] node2 (ssh)"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("--nnodes=2 --node_rank=1 --master_addr=node1 "), std::string::npos)
        << result.out;
}

TEST_F(SlurmFixture, UnderSrunEveryTaskIsRefused) {
    RunResult result = cluster().run_on_controller(
        {"srun", "-N2", binary().string(), "run", "--dry-run", "--nproc_per_node", "1", "t.py"});
    EXPECT_NE(result.exit_code, 0);
    EXPECT_NE(result.err.find("Error: running as task 1 of a Slurm step of 2 tasks"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
}

TEST_F(SlurmFixture, ASigkilledSrunLeavesNoTaskOnAnyNode) {
    TempDir logs("colossalai-slurm-logs");
    const std::string marker = "3141.59265";
    Background srun(cluster().controller_command({"srun", "-N2", "sleep", marker}), {},
                    logs.path() / "out", logs.path() / "err");
    ASSERT_TRUE(
        eventually([&] { return cluster().processes_with_marker(marker).size() >= 3; }, 30s))
        << "the tasks did not start: " << read_file(logs.path() / "err");
    srun.signal(SIGKILL);
    srun.wait(10s);
    EXPECT_TRUE(eventually([&] { return cluster().processes_with_marker(marker).empty(); }, 60s))
        << cluster().processes_with_marker(marker).size() << " processes left";
}

} // namespace
} // namespace colossalai::test
