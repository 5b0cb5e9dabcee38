#include "launcher_fixture.hpp"

#include <gtest/gtest.h>

#include <csignal>

// The loop once the jobs run: fail-fast, grace, signals, output.
namespace colossalai::launch {
namespace {

TEST_F(LauncherTest, AllNodesSucceed) {
    LaunchResult result = launch({exits(0, "a\n"), exits(0, "b\n")});
    EXPECT_EQ(result.exit_code, 0);
    ASSERT_EQ(result.outcomes.size(), 2u);
    EXPECT_TRUE(result.outcomes[0].exit.success());
    EXPECT_EQ(read_all(m_out), "node0: a\nnode1: b\n");
    EXPECT_EQ(read_all(m_err), "");
}

TEST_F(LauncherTest, FailFastStopsTheOthersWithSigterm) {
    LaunchResult result = launch({runs(), exits(3)});
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_EQ(result.first_failure, 1u);
    EXPECT_EQ(m_shared.received[0], std::vector<int>{SIGTERM});
    EXPECT_EQ(result.outcomes[0].delivered, std::vector<int>{SIGTERM});
    EXPECT_FALSE(result.outcomes[1].stopped());
    EXPECT_EQ(result.outcomes[0].exit.signal(), SIGTERM);
    EXPECT_EQ(read_all(m_err),
              "colossalai: node1 failed (exit code 3); stopping the other nodes\n");
}

// A node whose name its transport learnt as its job started (srun allocating the nodes) is named
// by it in the notices and the summary.
TEST_F(LauncherTest, ANodeIsNamedAsItsTransportLearntIt) {
    Script failing = exits(3);
    failing.host = "gpu7";
    LaunchResult result = launch({runs(), failing});
    EXPECT_EQ(result.outcomes[0].host, "node0");
    EXPECT_EQ(result.outcomes[1].host, "gpu7");
    EXPECT_EQ(read_all(m_err), "colossalai: gpu7 failed (exit code 3); stopping the other nodes\n");
}

// A transport that runs something for all its nodes (one srun) is polled once per turn, while
// its nodes run: not once per node.
TEST_F(LauncherTest, ATransportIsPolledOncePerTurnForAllItsNodes) {
    launch({exits_after(std::chrono::milliseconds(50), 0),
            exits_after(std::chrono::milliseconds(50), 0)});
    EXPECT_GT(m_shared.transport_steps, 0u);
    EXPECT_EQ(m_shared.transport_steps, m_shared.steps[0]);
    EXPECT_EQ(m_shared.transport_steps, m_shared.steps[1]);
}

TEST_F(LauncherTest, SigkillAfterTheGracePeriod) {
    Settings settings;
    settings.kill_grace = std::chrono::milliseconds(30);
    LaunchResult result = launch({runs({SIGTERM}), exits(5)}, settings);
    EXPECT_EQ(result.exit_code, 5);
    EXPECT_EQ(m_shared.received[0], (std::vector<int>{SIGTERM, SIGKILL}));
    EXPECT_EQ(result.outcomes[0].exit.signal(), SIGKILL);
}

TEST_F(LauncherTest, GivesUpOnANodeThatSurvivesSigkill) {
    Settings settings;
    settings.kill_grace = std::chrono::milliseconds(10);
    settings.abandon_after = std::chrono::milliseconds(10);
    Script hung = runs({SIGTERM});
    hung.hangs_after_kill = true;
    LaunchResult result = launch({hung, exits(2)}, settings);
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.outcomes[0].exit, job::Outcome::abandoned("abandoned"));
}

TEST_F(LauncherTest, WaitsWithoutSpinningBetweenSigkillAndGivingUp) {
    Settings settings;
    settings.kill_grace = std::chrono::milliseconds(10);
    settings.abandon_after = std::chrono::milliseconds(300);
    Script hung = runs({SIGTERM});
    hung.hangs_after_kill = true;
    LaunchResult result = launch({hung, exits(2)}, settings);
    EXPECT_EQ(result.outcomes[0].exit, job::Outcome::abandoned("abandoned"));
    // A few wake-ups (start, the grace timer, the abandon timer), not one per spin of a loop
    // whose spent grace deadline made every poll() return at once.
    EXPECT_LT(m_shared.steps[0], 10u);
    EXPECT_EQ(read_all(m_err), "colossalai: node1 failed (exit code 2); stopping the other nodes\n"
                               "colossalai: nodes still running 10 ms after SIGTERM; sending "
                               "SIGKILL\n"
                               "colossalai: node0 did not end after SIGKILL; giving up on it\n");
}

TEST_F(LauncherTest, TheKillNoticeNamesTheSignalThatWasNotEnough) {
    Settings settings;
    settings.kill_grace = std::chrono::milliseconds(10);
    Script stubborn = runs({SIGINT});
    stubborn.raise_in_launcher = SIGINT;
    LaunchResult result = launch({stubborn}, settings);
    EXPECT_EQ(result.exit_code, 130);
    EXPECT_EQ(m_shared.received[0], (std::vector<int>{SIGINT, SIGKILL}));
    EXPECT_EQ(read_all(m_err),
              "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n"
              "colossalai: nodes still running 10 ms after SIGINT; sending SIGKILL\n");
}

// The grace period in the loop's own time (the fixture's TestClock): the loop wakes up on the
// way (every max_clock_step) but sends SIGKILL only once the whole grace has passed.
TEST_F(LauncherTest, SigkillComesWhenTheGracePeriodEndsNotBefore) {
    using namespace std::chrono_literals;
    Settings settings;
    settings.kill_grace = 10s;
    LaunchResult result = launch({runs({SIGTERM}), exits(5)}, settings);
    EXPECT_EQ(result.exit_code, 5);
    ASSERT_EQ(m_shared.received[0], (std::vector<int>{SIGTERM, SIGKILL}));
    job::Clock::duration waited = m_shared.received_at[0][1] - m_shared.received_at[0][0];
    EXPECT_GE(waited, 10s);
    EXPECT_LE(waited, 10s + 1ms);      // the wait rounds up to the next millisecond
    EXPECT_GE(m_shared.steps[0], 10u); // it did wake up before the end of the grace
    EXPECT_EQ(result.outcomes[0].exit.signal(), SIGKILL);
    EXPECT_NE(read_all(m_err).find("nodes still running 10000 ms after SIGTERM; sending SIGKILL"),
              std::string::npos);
}

TEST_F(LauncherTest, GivesUpOnlyOnceTheAbandonTimeHasPassedAfterSigkill) {
    using namespace std::chrono_literals;
    Settings settings;
    settings.kill_grace = 2s;
    settings.abandon_after = 5s;
    Script hung = runs({SIGTERM});
    hung.hangs_after_kill = true;
    LaunchResult result = launch({hung, exits(2)}, settings);
    EXPECT_EQ(result.outcomes[0].exit, job::Outcome::abandoned("abandoned"));
    ASSERT_EQ(m_shared.received[0], (std::vector<int>{SIGTERM, SIGKILL}));
    ASSERT_TRUE(m_shared.abandoned_at[0].has_value());
    job::Clock::duration waited = *m_shared.abandoned_at[0] - m_shared.received_at[0][1];
    EXPECT_GE(waited, 5s);
    EXPECT_LE(waited, 5s + 1ms);
}

TEST_F(LauncherTest, ForwardsTheLaunchersSignalAndExits128PlusIt) {
    Script waits = runs();
    Script interrupts = runs();
    interrupts.raise_in_launcher = SIGINT;
    LaunchResult result = launch({waits, interrupts});
    EXPECT_EQ(result.exit_code, 130);
    EXPECT_EQ(result.launcher_signal, SIGINT);
    EXPECT_EQ(m_shared.received[0], std::vector<int>{SIGINT});
    EXPECT_EQ(m_shared.received[1], std::vector<int>{SIGINT});
    EXPECT_FALSE(result.first_failure.has_value());
}

TEST_F(LauncherTest, ASecondSignalKillsAtOnce) {
    Script stubborn = runs({SIGINT});
    stubborn.raise_in_launcher = SIGINT;
    Script also = runs({SIGINT});
    also.raise_in_launcher = SIGINT; // the second Ctrl-C
    LaunchResult result = launch({stubborn, also});
    EXPECT_EQ(result.exit_code, 130);
    EXPECT_EQ(m_shared.received[0], (std::vector<int>{SIGINT, SIGKILL}));
    EXPECT_EQ(result.outcomes[1].exit.signal(), SIGKILL);
}

// Issue #24: the summary says what each node got and how it ended, whatever its transport.
TEST_F(LauncherTest, TheSummarySaysWhatEachNodeGotAndHowItEnded) {
    Settings settings;
    settings.kill_grace = std::chrono::milliseconds(10);
    Script checkpoints = runs();
    checkpoints.handles_stop = 0;
    checkpoints.raise_in_launcher = SIGTERM;
    LaunchResult result = launch({checkpoints, runs({SIGTERM}), runs()}, settings);
    EXPECT_EQ(result.exit_code, 143);
    EXPECT_EQ(result.outcomes[0].delivered, std::vector<int>{SIGTERM});
    EXPECT_EQ(result.outcomes[1].delivered, (std::vector<int>{SIGTERM, SIGKILL}));
    EXPECT_EQ(render_summary(result.outcomes),
              "====== Training on All Nodes =====\n"
              "node0: success (exit code 0 after SIGTERM, stopped by the launcher)\n"
              "node1: failure (killed by SIGKILL after SIGTERM, stopped by the launcher)\n"
              "node2: failure (killed by SIGTERM, stopped by the launcher)\n");
}

TEST_F(LauncherTest, SingleNodeOutputIsUnprefixed) {
    LaunchResult result = launch({exits(0, "raw line\npartial")});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(read_all(m_out), "raw line\npartial");
}

} // namespace
} // namespace colossalai::launch
