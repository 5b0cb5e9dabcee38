// Fail-fast over SSH: when one node fails, the launcher stops the others through their node
// wrappers, SIGKILLs a job that ignores SIGTERM after --kill-grace, and says what happened to
// each node. Real hosts (tests/support/ssh_cluster.hpp), a fake torchrun on the nodes' PATH.

#include "teardown.hpp"

#include <chrono>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshFailFast : public SshTeardown {};

TEST_F(SshFailFast, ANodeThatFailsStopsTheOtherAndSetsTheExitCode) {
    // Rank 0 fails once rank 1 runs, with a child in its process group.
    behave("0", "await go; echo 'rank 0 gives up'; exit 3\n");
    behave("1", "spawn; ready; hold\n");
    auto launcher = start_launcher({"--kill-grace", "20"});
    ASSERT_TRUE(ready(1)) << launcher_err();
    release("go");
    EXPECT_EQ(exit_status(*launcher), 3);
    EXPECT_EQ(launcher_out(), "node1: rank 0 gives up\n");
    // SIGTERM through the wrapper ended it: no SIGKILL notice, well within the grace.
    EXPECT_EQ(launcher_err(),
              "colossalai: node1 failed (exit code 3); stopping the other nodes\n" +
                  summary_block({"node1: failure (exit code 3)",
                                 "node2: failure (killed by SIGTERM, stopped by the launcher)"}));
    expect_no_job_left(10s);
}

TEST_F(SshFailFast, AJobThatIgnoresSigtermIsKilledAfterTheGrace) {
    behave("0", "await go; exit 3\n");
    // The trap is inherited by the child spawn starts: the whole group ignores SIGTERM.
    behave("1", "trap '' TERM; spawn; ready; hold\n");
    auto launcher = start_launcher({"--kill-grace", "1"});
    ASSERT_TRUE(ready(1)) << launcher_err();
    release("go");
    EXPECT_EQ(exit_status(*launcher), 3);
    EXPECT_EQ(launcher_err(),
              "colossalai: node1 failed (exit code 3); stopping the other nodes\n"
              "colossalai: nodes still running 1000 ms after SIGTERM; sending SIGKILL\n" +
                  summary_block({"node1: failure (exit code 3)",
                                 "node2: failure (killed by SIGKILL after SIGTERM, stopped by the "
                                 "launcher)"}));
    expect_no_job_left(10s);
}

TEST_F(SshFailFast, ANodeThatFailsAtOnceStillStopsTheOther) {
    // No waiting for the other node: rank 1 may be stopped before its job started (the stop
    // line then arrives right behind the environment block) or while it runs.
    behave("0", "exit 4\n");
    behave("1", "spawn; hold\n");
    auto launcher = start_launcher({"--kill-grace", "20"});
    EXPECT_EQ(exit_status(*launcher), 4);
    std::string err = launcher_err();
    EXPECT_EQ(err.rfind("colossalai: node1 failed (exit code 4); stopping the other nodes\n", 0),
              0u)
        << err;
    EXPECT_NE(err.find("\nnode1: failure (exit code 4)\nnode2: failure ("), std::string::npos)
        << err;
    EXPECT_EQ(err.find("SIGKILL"), std::string::npos) << err;
    expect_no_job_left(10s);
}

// An elastic launch (--nnodes 1:2): node1's job fails while node2 still runs, which is MIN, so
// node1 leaves and node2 is not stopped; the job ends with node2's success.
TEST_F(SshFailFast, AnElasticLaunchLetsANodeLeaveWhileMinRemain) {
    behave("0", "await go; echo 'rank 0 leaves'; exit 3\n");
    behave("1", "spawn; ready; await done\n");
    auto launcher = start_launcher({"--nnodes", "1:2", "--kill-grace", "20"});
    ASSERT_TRUE(ready(1)) << launcher_err();
    release("go");
    ASSERT_TRUE(launcher_said("colossalai: node1 left the job (exit code 3); it goes on with 1 "
                              "node (at least 1)\n"))
        << launcher_err();
    release("done");
    EXPECT_EQ(exit_status(*launcher), 0) << launcher_err();
    std::string err = launcher_err();
    EXPECT_EQ(err.find("stopping the other nodes"), std::string::npos) << err;
    std::string::size_type block = err.rfind("====== Training on All Nodes =====\n");
    ASSERT_NE(block, std::string::npos) << err;
    Words summary = lines_of(err.substr(block));
    ASSERT_EQ(summary.size(), 3u) << err;
    EXPECT_EQ(summary[1].rfind("node1: left ", 0), 0u) << summary[1];
    EXPECT_NE(summary[1].find(" s after the start (exit code 3); the job went on without it"),
              std::string::npos)
        << summary[1];
    EXPECT_EQ(summary[2], "node2: success");
    expect_no_job_left(10s);
}

// Below MIN, fail-fast applies as in a static launch: with --nnodes 2:2 and a rendezvous
// option, node1's failure stops node2.
TEST_F(SshFailFast, AnElasticLaunchFailsFastBelowMin) {
    behave("0", "await go; exit 3\n");
    behave("1", "spawn; ready; hold\n");
    auto launcher = start_launcher({"--nnodes", "2", "--rdzv_id", "job7", "--kill-grace", "20"});
    ASSERT_TRUE(ready(1)) << launcher_err();
    release("go");
    EXPECT_EQ(exit_status(*launcher), 3);
    EXPECT_EQ(launcher_err(),
              "colossalai: node1 failed (exit code 3); stopping the other nodes\n" +
                  summary_block({"node1: failure (exit code 3)",
                                 "node2: failure (killed by SIGTERM, stopped by the launcher)"}));
    expect_no_job_left(10s);
}

} // namespace
} // namespace colossalai::test
