#include "launcher_fixture.hpp"

#include <gtest/gtest.h>

#include <csignal>

// The loop before the jobs run: no job starts before every node is ready (connected and logged
// in), and none at all when a host cannot be reached or the launcher is stopped meanwhile.
namespace colossalai::launch {
namespace {

Script connects_slowly(size_t steps, Script then) {
    then.connect_steps = steps;
    return then;
}

Script cannot_connect(std::string error, size_t steps = 0) {
    Script script;
    script.connect_steps = steps;
    script.connect_error = std::move(error);
    return script;
}

TEST_F(LauncherTest, NoJobStartsBeforeEveryNodeIsReady) {
    LaunchResult result =
        launch({exits(0, "a\n"), connects_slowly(5, exits(0, "b\n")), exits(0, "c\n")});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(m_shared.went, (std::vector<bool>{true, true, true}));
    // Each node started once the slow one was ready: at least its 5 steps came first.
    EXPECT_GE(m_shared.steps[0], 5u);
    EXPECT_EQ(read_all(m_out), "node0: a\nnode1: b\nnode2: c\n");
}

TEST_F(LauncherTest, AHostThatCannotBeReachedStartsNoJobAnywhere) {
    LaunchResult result =
        launch({runs(), cannot_connect("connection refused", 2),
                cannot_connect("unknown host key", 6), connects_slowly(9, runs())});
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_EQ(result.first_failure, 1u);
    EXPECT_EQ(m_shared.went, (std::vector<bool>{false, false, false, false}));
    // Every failing host is reported, not only the first: the launcher waited for node3 too.
    EXPECT_EQ(result.outcomes[1].exit, job::Outcome::connect_failed("connection refused"));
    EXPECT_EQ(result.outcomes[2].exit, job::Outcome::connect_failed("unknown host key"));
    for (size_t i : {0u, 3u}) {
        EXPECT_EQ(result.outcomes[i].exit, job::Outcome::not_started()) << i;
        EXPECT_TRUE(result.outcomes[i].stopped()) << i;
    }
    EXPECT_EQ(read_all(m_err), "colossalai: node1 failed (connection refused); starting no job\n");
}

TEST_F(LauncherTest, ASignalWhileConnectingStartsNoJob) {
    Script interrupts = connects_slowly(1, runs()); // Ctrl-C while connecting
    interrupts.raise_in_launcher = SIGINT;
    LaunchResult result = launch({connects_slowly(3, runs()), interrupts});
    EXPECT_EQ(result.exit_code, 128 + SIGINT);
    EXPECT_EQ(m_shared.went, (std::vector<bool>{false, false}));
    EXPECT_EQ(result.outcomes[0].exit, job::Outcome::not_started());
}

// The rendezvous check after the barrier: the listener first; the others once it listens;
// the jobs once every part answered, none when one failed.

Script checks(job::RendezvousTurn turn, size_t steps, Script then,
              std::optional<std::string> failure = std::nullopt) {
    then.rendezvous_turn = turn;
    then.rendezvous_steps = steps;
    then.rendezvous_failure = std::move(failure);
    return then;
}

TEST_F(LauncherTest, TheOthersCheckOnceTheListenerListensAndTheJobsStartAfter) {
    LaunchResult result = launch({checks(job::RendezvousTurn::listen, 3, exits(0)),
                                  checks(job::RendezvousTurn::connect, 2, exits(0)),
                                  checks(job::RendezvousTurn::connect, 1, exits(0)), exits(0)});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(m_shared.rendezvous,
              (std::vector<std::string>{"asked 0", "answered 0", "asked 1", "asked 2", "answered 2",
                                        "answered 1"}));
    EXPECT_EQ(m_shared.went, (std::vector<bool>{true, true, true, true}));
}

TEST_F(LauncherTest, AFailedConnectionStartsNoJobAndNamesTheNode) {
    LaunchResult result = launch({checks(job::RendezvousTurn::listen, 1, runs()),
                                  checks(job::RendezvousTurn::connect, 1, runs(), "refused"),
                                  checks(job::RendezvousTurn::connect, 4, runs(), "timed out"),
                                  connects_slowly(0, runs())});
    EXPECT_EQ(result.exit_code, 254);
    EXPECT_EQ(m_shared.went, (std::vector<bool>{false, false, false, false}));
    // Every failing node is named: the launcher waited for node2's part too.
    EXPECT_EQ(result.outcomes[1].exit, job::Outcome::cannot_run("refused", 254));
    EXPECT_EQ(result.outcomes[2].exit, job::Outcome::cannot_run("timed out", 254));
    for (size_t i : {0u, 3u}) {
        EXPECT_EQ(result.outcomes[i].exit, job::Outcome::not_started()) << i;
    }
    EXPECT_EQ(read_all(m_err), "colossalai: node1 failed (refused); starting no job\n");
}

TEST_F(LauncherTest, AListenerThatFailsAsksNoOtherNode) {
    LaunchResult result = launch({checks(job::RendezvousTurn::listen, 2, runs(), "port in use"),
                                  checks(job::RendezvousTurn::connect, 1, runs())});
    EXPECT_EQ(result.exit_code, 254);
    EXPECT_EQ(m_shared.rendezvous, (std::vector<std::string>{"asked 0", "answered 0"}));
    EXPECT_EQ(result.outcomes[1].exit, job::Outcome::not_started());
}

} // namespace
} // namespace colossalai::launch
