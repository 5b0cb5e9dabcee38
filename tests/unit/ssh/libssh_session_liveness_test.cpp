// How a running node's connection is kept and judged alive, on a clock the test moves: the
// heartbeat lines, the keepalive requests and their answers, TCP_USER_TIMEOUT.

#include "fake_node.hpp"

#include <gtest/gtest.h>

namespace colossalai::ssh::fake {
namespace {

using output::Stream;

TEST(SshHeartbeat, AnEmptyLineEveryInterval) {
    FakeNode node;
    node.start_running();
    job::Clock::time_point started = TestClock::now();
    EXPECT_EQ(node.process->deadline(), started + 1000ms);

    TestClock::advance(999ms);
    node.tick();
    EXPECT_EQ(node.written_after_go(), "");

    TestClock::advance(1ms);
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.written_after_go(), "\n");
    EXPECT_EQ(node.process->deadline(), started + 2000ms);

    TestClock::advance(1000ms);
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.written_after_go(), "\n\n");
    EXPECT_FALSE(node.ended());
}

// Keepalive every 3 s, lost after 3 intervals in a row without a packet from the node.
TEST(SshKeepalive, SentEveryIntervalAndLostAfterCountUnanswered) {
    FakeNode node;
    node.start_running();
    TestClock::advance(2999ms);
    node.tick();
    EXPECT_EQ(node.libssh.keepalives_sent(), 0);
    TestClock::advance(1ms);
    node.tick();
    EXPECT_EQ(node.libssh.keepalives_sent(), 1);
    TestClock::advance(3000ms);
    node.tick();
    EXPECT_EQ(node.libssh.keepalives_sent(), 2);
    EXPECT_FALSE(node.ended());
    TestClock::advance(3000ms);
    node.tick();
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::connection_lost(
                                  "connection lost: no answer from its sshd for 9 s (keepalive)"));
    EXPECT_TRUE(node.output.closed(Stream::out));
}

// The host's ServerAliveInterval / ServerAliveCountMax (read for it by the connection's config
// reader) replace both settings.
TEST(SshKeepalive, TheHostsServerAliveSettingsReplaceTheDefaults) {
    SshSettings settings = test_settings();
    std::vector<ConfigTarget> read_for;
    settings.connect.read_config = [&read_for](const ConfigTarget& target) {
        read_for.push_back(target);
        ClientConfig config;
        config.server_alive_interval = 2;
        config.server_alive_count_max = 2;
        return config;
    };
    FakeNode node({}, settings);
    node.start_running();
    ASSERT_EQ(read_for.size(), 1u);
    EXPECT_EQ(read_for[0].original, "node1");
    TestClock::advance(2000ms);
    node.tick();
    EXPECT_EQ(node.libssh.keepalives_sent(), 1);
    EXPECT_FALSE(node.ended());
    TestClock::advance(2000ms);
    node.tick();
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::connection_lost(
                                  "connection lost: no answer from its sshd for 4 s (keepalive)"));
}

TEST(SshKeepalive, AnyPacketFromTheNodeIsAnAnswer) {
    FakeNode node;
    node.start_running();
    for (int interval = 0; interval < 2; ++interval) { // two intervals unanswered
        TestClock::advance(3000ms);
        node.tick();
    }
    TestClock::advance(2000ms);
    node.libssh.arrive({reply()});
    ASSERT_TRUE(node.settle()); // the socket is read: libssh counts the packet
    TestClock::advance(1000ms);
    node.tick(); // the third interval: answered
    EXPECT_FALSE(node.ended()) << node.said();
    for (int interval = 0; interval < 2; ++interval) {
        TestClock::advance(3000ms);
        node.tick();
    }
    EXPECT_FALSE(node.ended()) << node.said();
    TestClock::advance(3000ms);
    node.tick();
    EXPECT_TRUE(node.ended()); // three in a row since the reply
}

TEST(SshKeepalive, UnreadBytesOnThePausedSocketAreAnAnswer) {
    FakeNode node;
    node.start_running();
    node.output.set_accepting(Stream::out, false); // a paused pager: the socket is not read
    node.libssh.stall_bytes(100);
    for (int interval = 0; interval < 5; ++interval) {
        TestClock::advance(3000ms);
        node.tick();
    }
    EXPECT_FALSE(node.ended()) << node.said();
    EXPECT_EQ(node.libssh.keepalives_sent(), 5);
}

TEST(SshUnackedLimit, TcpUserTimeoutIsSetOnceTheJobRuns) {
    Script script;
    script.tcp = true;
    FakeNode node(script);
    node.await_worker();
    EXPECT_EQ(node.libssh.user_timeout_ms(), 0u); // logging in has its own timeout
    node.process->go();
    ASSERT_FALSE(node.ended()) << node.said();
    EXPECT_EQ(node.libssh.user_timeout_ms(), 9000u);
}

} // namespace
} // namespace colossalai::ssh::fake
