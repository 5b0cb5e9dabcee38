// What both SSH transports write to a node wrapper's stdin and make of its end (WrapperControl):
// one outbox, the signals relayed, the heartbeat's schedule, the job's outcome.

#include "wrapper_control.hpp"

#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <string>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using job::Outcome;

const job::Clock::time_point control_start{std::chrono::seconds(1000)};

WrapperControl control_with(std::string input = {}) {
    return WrapperControl(5s, 30s, std::move(input));
}

TEST(WrapperControl, TheInputGoesFirstThenGo) {
    WrapperControl control = control_with("wrapper input\n");
    EXPECT_EQ(control.outbox(), "wrapper input\n");
    control.go(control_start);
    EXPECT_EQ(control.outbox(), "wrapper input\n" + std::string(go_line));
}

TEST(WrapperControl, WrittenBytesLeaveTheOutboxAndADropEmptiesIt) {
    WrapperControl control = control_with();
    control.go(control_start);
    control.written(1);
    EXPECT_EQ(control.outbox(), "o\n");
    control.pause();
    EXPECT_EQ(control.outbox(), "o\n" + std::string(pause_line));
    control.drop();
    EXPECT_EQ(control.outbox(), "");
}

TEST(WrapperControl, ARelayedSignalIsAControlLineAndItsStatusIsAKill) {
    WrapperControl control = control_with();
    EXPECT_TRUE(control.relay(SIGTERM));
    EXPECT_EQ(control.outbox(), "TERM\n");
    EXPECT_EQ(control.job_end(128 + SIGTERM), Outcome::killed(SIGTERM));
    // 128+N for a signal never relayed is the job's own exit code.
    EXPECT_EQ(control.job_end(128 + SIGINT), Outcome::exited(128 + SIGINT));
    EXPECT_EQ(control.job_end(3), Outcome::exited(3));
}

TEST(WrapperControl, ASignalTheWrapperDoesNotRelayQueuesNothing) {
    WrapperControl control = control_with();
    EXPECT_FALSE(control.relay(SIGCHLD));
    EXPECT_EQ(control.outbox(), "");
    EXPECT_EQ(control.job_end(128 + SIGCHLD), Outcome::exited(128 + SIGCHLD));
}

TEST(WrapperControl, NoStatusIsTheSilenceLimit) {
    EXPECT_EQ(control_with().job_end(std::nullopt), stopped_by_silence(30s));
}

TEST(WrapperControl, AHeartbeatIsDueOneIntervalAfterGoAndAfterTheLast) {
    WrapperControl control = control_with();
    control.go(control_start);
    control.drop();
    EXPECT_EQ(control.next_heartbeat(), control_start + 5s);
    EXPECT_FALSE(control.heartbeat(control_start + 4s));
    EXPECT_EQ(control.outbox(), "");
    EXPECT_TRUE(control.heartbeat(control_start + 6s));
    EXPECT_EQ(control.outbox(), "\n");
    EXPECT_EQ(control.next_heartbeat(), control_start + 11s);
}

TEST(WrapperControl, ALineWaitingIsHeartbeatEnough) {
    WrapperControl control = control_with();
    control.go(control_start);
    EXPECT_FALSE(control.heartbeat(control_start + 5s)); // `go` is still queued
    EXPECT_EQ(control.outbox(), go_line);
    EXPECT_EQ(control.next_heartbeat(), control_start + 10s);
}

} // namespace
} // namespace colossalai::ssh
