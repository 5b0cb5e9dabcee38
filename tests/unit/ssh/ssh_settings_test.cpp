#include "colossalai/ssh/ssh_transport.hpp"

#include <gtest/gtest.h>

// How --ssh-timeout sets the liveness of running nodes' connections.
namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;

TEST(SshSettings, DefaultTimeoutGivesMinuteLongSilenceAndFiveSecondHeartbeats) {
    SshSettings settings = ssh_settings(30000ms, 10000ms);
    EXPECT_EQ(settings.connect.timeout, 30000ms);
    EXPECT_EQ(settings.kill_grace, 10000ms);
    EXPECT_EQ(settings.unacked_limit, 30000ms);
    EXPECT_EQ(settings.silence_limit, 60000ms);
    EXPECT_EQ(settings.heartbeat, 5000ms);
    EXPECT_EQ(settings.keepalive_interval, 5000ms);
    EXPECT_EQ(settings.keepalive_count, 12);
}

TEST(SshSettings, AFrozenNodeIsLostAfterTwiceTheTimeoutAfterTcpWouldReportACut) {
    SshSettings settings = ssh_settings(3000ms, 1000ms);
    EXPECT_EQ(settings.keepalive_interval * settings.keepalive_count, 6000ms);
    EXPECT_GT(settings.keepalive_interval * settings.keepalive_count, settings.unacked_limit);
}

TEST(SshSettings, HeartbeatsComeWellWithinTheSilenceLimit) {
    SshSettings settings = ssh_settings(2000ms, 1000ms);
    EXPECT_EQ(settings.silence_limit, 4000ms);
    EXPECT_EQ(settings.heartbeat, 333ms);
    EXPECT_EQ(ssh_settings(300ms, 0ms).heartbeat, 100ms); // never a busy stream of them
}

} // namespace
} // namespace colossalai::ssh
