#include "colossalai/job/outcome.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <vector>

namespace colossalai::job {
namespace {

TEST(Outcome, StatusAsAShellReportsIt) {
    EXPECT_EQ(Outcome::exited(0).status(), 0);
    EXPECT_EQ(Outcome::exited(3).status(), 3);
    EXPECT_EQ(Outcome::exited(143).status(), 143);
    EXPECT_EQ(Outcome::killed(SIGKILL).status(), 137);
    EXPECT_EQ(Outcome::not_started().status(), 255);
    EXPECT_EQ(Outcome::connect_failed("refused").status(), 255);
    EXPECT_EQ(Outcome::connection_lost("connection lost: reset").status(), 255);
    EXPECT_EQ(Outcome::connection_lost("no exit status (srun exit code 7)", 7).status(), 7);
    EXPECT_EQ(Outcome::cannot_run("cannot execute torchrun").status(), 127);
    EXPECT_EQ(Outcome::abandoned("given up").status(), 255);
}

TEST(Outcome, OnlyAnExitWithZeroIsASuccess) {
    EXPECT_TRUE(Outcome::exited(0).success());
    EXPECT_FALSE(Outcome::exited(1).success());
    EXPECT_FALSE(Outcome::killed(SIGTERM).success());
    EXPECT_FALSE(Outcome::not_started().success());
    EXPECT_FALSE(Outcome::cannot_run("x", 0).success());
}

TEST(Outcome, DescribedOnce) {
    EXPECT_EQ(describe(Outcome::exited(3)), "exit code 3");
    EXPECT_EQ(describe(Outcome::exited(130)), "exit code 130");
    EXPECT_EQ(describe(Outcome::killed(SIGTERM)), "killed by SIGTERM");
    EXPECT_EQ(describe(Outcome::killed(42)), "killed by signal 42");
    EXPECT_EQ(describe(Outcome::not_started()), "not started");
    EXPECT_EQ(describe(Outcome::not_started("cannot resolve 'gpu1'")),
              "not started: cannot resolve 'gpu1'");
    EXPECT_EQ(describe(Outcome::connect_failed("cannot connect: refused")),
              "cannot connect: refused");
}

TEST(Outcome, StoppedByTheLauncherIsSaidOnceWhateverTheKind) {
    const std::vector<int> term = {SIGTERM};
    EXPECT_EQ(describe(Outcome::not_started(), term), "not started, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::killed(SIGTERM), term),
              "killed by SIGTERM, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::abandoned("did not end after SIGKILL; connection closed"),
                       std::vector<int>{SIGTERM, SIGKILL}),
              "did not end after SIGKILL; connection closed, stopped by the launcher");
}

// Issue #24: what the node got from the launcher and how it ended, the same line for every
// transport (the loop records the deliveries, not the transport).
TEST(Outcome, AStoppedNodeSaysWhatItGotBeforeItsEnd) {
    EXPECT_EQ(describe(Outcome::exited(0), std::vector<int>{SIGTERM}),
              "exit code 0 after SIGTERM, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::exited(1), std::vector<int>{SIGINT}),
              "exit code 1 after SIGINT, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::killed(SIGKILL), std::vector<int>{SIGTERM, SIGKILL}),
              "killed by SIGKILL after SIGTERM, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::killed(SIGKILL), std::vector<int>{SIGKILL}),
              "killed by SIGKILL, stopped by the launcher");
    EXPECT_EQ(describe(Outcome::exited(0), std::vector<int>{SIGTERM, SIGINT, SIGKILL}),
              "exit code 0 after SIGTERM and SIGINT and SIGKILL, stopped by the launcher");
}

TEST(Outcome, ValuesCompare) {
    EXPECT_EQ(Outcome::killed(SIGTERM), Outcome::killed(SIGTERM));
    EXPECT_NE(Outcome::killed(SIGTERM), Outcome::exited(128 + SIGTERM));
    EXPECT_NE(Outcome::not_started(), Outcome::not_started("x"));
}

} // namespace
} // namespace colossalai::job
