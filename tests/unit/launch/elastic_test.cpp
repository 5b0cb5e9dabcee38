// The stop policy of an elastic launch: a node that fails or is lost leaves the job while at
// least MIN nodes still run; below that (or in a static launch) fail-fast stops the others.

#include "launcher_fixture.hpp"

#include "colossalai/launch/stop_policy.hpp"
#include "colossalai/launch/summary.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::launch {
namespace {

using namespace std::chrono_literals;

TEST(ClassifyNodeEnd, StaticLaunchFailsAtTheFirstFailure) {
    EXPECT_EQ(classify_node_end(std::nullopt, true, 3), NodeEnd::finished);
    EXPECT_EQ(classify_node_end(std::nullopt, false, 3), NodeEnd::failed);
    EXPECT_EQ(classify_node_end(std::nullopt, false, 0), NodeEnd::failed);
}

TEST(ClassifyNodeEnd, ElasticLaunchLetsANodeLeaveWhileMinRemain) {
    EXPECT_EQ(classify_node_end(2, false, 2), NodeEnd::left);
    EXPECT_EQ(classify_node_end(2, false, 5), NodeEnd::left);
    EXPECT_EQ(classify_node_end(2, false, 1), NodeEnd::failed);
    EXPECT_EQ(classify_node_end(1, false, 0), NodeEnd::failed);
    EXPECT_EQ(classify_node_end(2, true, 0), NodeEnd::finished);
    EXPECT_EQ(classify_node_end(2, true, 1), NodeEnd::finished);
}

Settings elastic(std::size_t min_nodes) {
    Settings settings;
    settings.min_nodes = min_nodes;
    return settings;
}

TEST_F(LauncherTest, ElasticNodeThatFailsLeavesAndTheOthersFinish) {
    LaunchResult result =
        launch({exits_after(5s, 0), exits_after(5s, 0), exits_after(2s, 137)}, elastic(2));
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.first_failure, std::nullopt);
    EXPECT_TRUE(m_shared.received[0].empty());
    EXPECT_TRUE(m_shared.received[1].empty());
    EXPECT_EQ(result.outcomes[2].left_after, std::chrono::milliseconds(2000));
    EXPECT_EQ(result.outcomes[0].left_after, std::nullopt);
    EXPECT_EQ(read_all(m_err), "colossalai: node2 left the job (exit code 137); it goes on with 2 "
                               "nodes (at least 2)\n");
    EXPECT_EQ(render_summary(result.outcomes),
              "====== Training on All Nodes =====\n"
              "node0: success\n"
              "node1: success\n"
              "node2: left 2.0 s after the start (exit code 137); the job went on without it\n");
}

TEST_F(LauncherTest, ElasticFailsFastOnceFewerThanMinRemain) {
    LaunchResult result = launch({runs(), exits_after(1s, 1), exits_after(2s, 3)}, elastic(2));
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_EQ(result.first_failure, 2u);
    EXPECT_EQ(result.outcomes[1].left_after, std::chrono::milliseconds(1000));
    EXPECT_EQ(result.outcomes[2].left_after, std::nullopt);
    EXPECT_EQ(m_shared.received[0], std::vector<int>{SIGTERM});
    EXPECT_EQ(read_all(m_err),
              "colossalai: node1 left the job (exit code 1); it goes on with 2 nodes (at least "
              "2)\n"
              "colossalai: node2 failed (exit code 3); stopping the other nodes\n");
}

TEST_F(LauncherTest, ElasticJobThatFailsEverywhereFails) {
    // torchrun gave up on every node (max_restarts spent): the last to end fails the job.
    LaunchResult result = launch({exits_after(1s, 1), exits_after(1s, 1)}, elastic(1));
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.first_failure, 1u);
    EXPECT_EQ(result.outcomes[0].left_after, std::chrono::milliseconds(1000));
}

TEST_F(LauncherTest, ElasticLaunchStillStartsNothingWhenAHostCannotBeReached) {
    Script unreachable;
    unreachable.connect_error = "no route to host";
    LaunchResult result = launch({runs(), runs(), unreachable}, elastic(2));
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_FALSE(m_shared.went[0]);
    EXPECT_FALSE(m_shared.went[1]);
    EXPECT_EQ(result.outcomes[2].left_after, std::nullopt);
}

TEST_F(LauncherTest, ElasticLaunchStopsEveryNodeOnTheLaunchersSignal) {
    Script raises = runs();
    raises.raise_in_launcher = SIGTERM;
    LaunchResult result = launch({runs(), raises, runs()}, elastic(1));
    EXPECT_EQ(result.exit_code, 128 + SIGTERM);
    for (const NodeOutcome& outcome : result.outcomes) {
        EXPECT_EQ(outcome.left_after, std::nullopt) << outcome.host;
        EXPECT_TRUE(outcome.stopped()) << outcome.host;
    }
}

TEST(LauncherExitCode, NodesThatLeftDoNotCount) {
    std::vector<NodeOutcome> outcomes = {
        {"a", job::Outcome::exited(0), {}, std::nullopt},
        {"b", job::Outcome::killed(SIGKILL), {}, std::chrono::milliseconds(1500)},
    };
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, 0), 0);
    outcomes[1].left_after.reset();
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, 0), 128 + SIGKILL);
}

} // namespace
} // namespace colossalai::launch
