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

} // namespace
} // namespace colossalai::test
