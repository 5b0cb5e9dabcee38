#include "colossalai/launch/summary.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::launch {
namespace {

ExitInfo exited(int code) {
    return ExitInfo{code, 0, ""};
}
ExitInfo killed(int signo) {
    return ExitInfo{-1, signo, ""};
}
ExitInfo broken(std::string error) {
    return ExitInfo{-1, 0, std::move(error)};
}

TEST(Summary, RendersOneLinePerHost) {
    std::vector<NodeOutcome> outcomes{{"node1", exited(0), false},
                                      {"node2", exited(3), false},
                                      {"node3", killed(SIGTERM), true},
                                      {"node4", broken("connection lost: Socket error"), true}};
    EXPECT_EQ(render_summary(outcomes), "====== Training on All Nodes =====\n"
                                        "node1: success\n"
                                        "node2: failure (exit code 3)\n"
                                        "node3: failure (killed by SIGTERM, stopped by the "
                                        "launcher)\n"
                                        "node4: failure (connection lost: Socket error, stopped "
                                        "by the launcher)\n");
}

TEST(Summary, ANodeNeverStartedBecauseOfFailFast) {
    // What the SSH transport reports for a node whose connection had not begun when the
    // launcher stopped the job.
    std::vector<NodeOutcome> outcomes{{"node1", exited(3), false},
                                      {"node2", broken("not started"), true}};
    EXPECT_EQ(render_summary(outcomes), "====== Training on All Nodes =====\n"
                                        "node1: failure (exit code 3)\n"
                                        "node2: failure (not started, stopped by the launcher)\n");
}

TEST(Summary, StatusOfAnEnd) {
    EXPECT_EQ(status_of(exited(0)), 0);
    EXPECT_EQ(status_of(exited(3)), 3);
    EXPECT_EQ(status_of(killed(SIGKILL)), 137);
    EXPECT_EQ(status_of(broken("refused")), 255);
    EXPECT_EQ(status_of(ExitInfo{127, 0, "cannot execute torchrun"}), 127);
}

TEST(Summary, ExitCodeIsZeroOnlyWhenAllSucceeded) {
    std::vector<NodeOutcome> ok{{"a", exited(0), false}, {"b", exited(0), false}};
    EXPECT_EQ(launcher_exit_code(ok, std::nullopt, 0), 0);
}

TEST(Summary, ExitCodeIsTheFirstFailure) {
    std::vector<NodeOutcome> outcomes{{"a", killed(SIGTERM), true}, {"b", exited(3), false}};
    EXPECT_EQ(launcher_exit_code(outcomes, 1, 0), 3);
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, 0), 143); // first in node order
}

TEST(Summary, ExitCodeAfterASignalToTheLauncher) {
    std::vector<NodeOutcome> outcomes{{"a", exited(1), true}};
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, SIGINT), 130);
    EXPECT_EQ(launcher_exit_code(outcomes, 0, SIGTERM), 143);
}

TEST(Summary, SignalNames) {
    EXPECT_EQ(signal_name(SIGINT), "SIGINT");
    EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
    EXPECT_EQ(signal_name(63), "signal 63");
}

} // namespace
} // namespace colossalai::launch
