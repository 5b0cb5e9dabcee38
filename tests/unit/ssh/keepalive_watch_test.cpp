// Whether a running node's sshd still answers, judged without a connection: when an interval
// ends, what counts as an answer, when the connection is lost and what it says, and which
// interval and count a host's ssh config gives.

#include "keepalive_watch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using Action = KeepaliveWatch::Verdict::Action;

const job::Clock::time_point watch_started{std::chrono::seconds(1000)};

TEST(KeepaliveWatchInterval, NothingIsDueBeforeTheIntervalEnds) {
    KeepaliveWatch watch(3000ms, 3, watch_started);
    EXPECT_EQ(watch.deadline(), watch_started + 3000ms);
    KeepaliveWatch::Verdict verdict = watch.check(watch_started + 2999ms, 0, false);
    EXPECT_EQ(verdict.action, Action::wait);
    EXPECT_EQ(watch.deadline(), watch_started + 3000ms);
}

TEST(KeepaliveWatchInterval, ARequestGoesOutWhenItEndsAndTheNextStartsThen) {
    KeepaliveWatch watch(3000ms, 3, watch_started);
    EXPECT_EQ(watch.check(watch_started + 3000ms, 0, false).action, Action::send);
    EXPECT_EQ(watch.deadline(), watch_started + 6000ms);
    // A late check (the loop was busy): the next interval starts from it, not from the
    // deadline.
    EXPECT_EQ(watch.check(watch_started + 7000ms, 0, false).action, Action::send);
    EXPECT_EQ(watch.deadline(), watch_started + 10000ms);
}

TEST(KeepaliveWatchLoss, TheCountthUnansweredIntervalInARowLosesTheConnection) {
    KeepaliveWatch watch(3000ms, 3, watch_started);
    EXPECT_EQ(watch.check(watch_started + 3000ms, 0, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 6000ms, 0, false).action, Action::send);
    KeepaliveWatch::Verdict verdict = watch.check(watch_started + 9000ms, 0, false);
    EXPECT_EQ(verdict.action, Action::lose);
    EXPECT_EQ(verdict.silence, 9000ms); // interval × count
}

TEST(KeepaliveWatchLoss, TheOutcomeSaysHowLongTheNodeWasSilent) {
    EXPECT_EQ(KeepaliveWatch::lost(9000ms),
              job::Outcome::connection_lost(
                  "connection lost: no answer from its sshd for 9 s (keepalive)"));
    EXPECT_EQ(KeepaliveWatch::lost(1500ms),
              job::Outcome::connection_lost(
                  "connection lost: no answer from its sshd for 1.5 s (keepalive)"));
}

TEST(KeepaliveWatchAnswer, APacketFromTheNodeResetsTheUnansweredIntervals) {
    KeepaliveWatch watch(1000ms, 3, watch_started);
    std::uint64_t packets = 5; // counted before the job ran (login, channel)
    // The first check sees a count it has not seen: an answer.
    EXPECT_EQ(watch.check(watch_started + 1s, packets, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 2s, packets, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 3s, packets, false).action, Action::send);
    ++packets; // just before the third unanswered interval would end
    EXPECT_EQ(watch.check(watch_started + 4s, packets, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 5s, packets, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 6s, packets, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 7s, packets, false).action, Action::lose); // three since
}

TEST(KeepaliveWatchAnswer, UnreadBytesOnTheSocketResetTheUnansweredIntervals) {
    KeepaliveWatch watch(1000ms, 2, watch_started);
    EXPECT_EQ(watch.check(watch_started + 1s, 0, false).action, Action::send);
    for (int interval = 2; interval < 10; ++interval) { // the socket is not read: no packets
        EXPECT_EQ(watch.check(watch_started + interval * 1s, 0, true).action, Action::send);
    }
    EXPECT_EQ(watch.check(watch_started + 10s, 0, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 11s, 0, false).action, Action::lose);
}

TEST(KeepaliveWatchAnswer, ChecksBeforeTheIntervalEndsAreNeitherAnswerNorSilence) {
    KeepaliveWatch watch(1000ms, 2, watch_started);
    EXPECT_EQ(watch.check(watch_started + 1s, 0, false).action, Action::send);
    // Packets seen early are kept for the end of the interval, which then counts them.
    EXPECT_EQ(watch.check(watch_started + 1500ms, 1, false).action, Action::wait);
    EXPECT_EQ(watch.check(watch_started + 2s, 1, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 3s, 1, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 4s, 1, false).action, Action::lose);
}

TEST(KeepaliveWatchConfig, WithoutServerAliveSettingsTheLaunchersApply) {
    KeepaliveWatch watch = KeepaliveWatch::for_host(ClientConfig{}, 5000ms, 12, watch_started);
    EXPECT_EQ(watch.deadline(), watch_started + 5000ms);
    KeepaliveWatch::Verdict verdict;
    for (int interval = 1; interval <= 12; ++interval) {
        verdict = watch.check(watch_started + interval * 5000ms, 0, false);
    }
    EXPECT_EQ(verdict.action, Action::lose);
    EXPECT_EQ(verdict.silence, 60000ms);
}

TEST(KeepaliveWatchConfig, ServerAliveIntervalAndCountMaxReplaceBoth) {
    ClientConfig config;
    config.server_alive_interval = 2;
    config.server_alive_count_max = 2;
    KeepaliveWatch watch = KeepaliveWatch::for_host(config, 5000ms, 12, watch_started);
    EXPECT_EQ(watch.deadline(), watch_started + 2s);
    EXPECT_EQ(watch.check(watch_started + 2s, 0, false).action, Action::send);
    KeepaliveWatch::Verdict verdict = watch.check(watch_started + 4s, 0, false);
    EXPECT_EQ(verdict.action, Action::lose);
    EXPECT_EQ(verdict.silence, 4s);
}

TEST(KeepaliveWatchConfig, ServerAliveCountMaxDefaultsToOpenSshs3) {
    ClientConfig config;
    config.server_alive_interval = 1;
    KeepaliveWatch watch = KeepaliveWatch::for_host(config, 5000ms, 12, watch_started);
    EXPECT_EQ(watch.check(watch_started + 1s, 0, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 2s, 0, false).action, Action::send);
    KeepaliveWatch::Verdict verdict = watch.check(watch_started + 3s, 0, false);
    EXPECT_EQ(verdict.action, Action::lose);
    EXPECT_EQ(verdict.silence, 3s);
}

// ServerAliveInterval 0 (OpenSSH: no keepalive) keeps the launcher's: its keepalive is what
// notices a frozen node. A ServerAliveCountMax alone changes nothing either.
TEST(KeepaliveWatchConfig, AnIntervalOf0OrNoneKeepsTheLaunchersIntervalAndCount) {
    for (int given : {0, -1}) {
        ClientConfig zero;
        zero.server_alive_interval = given;
        zero.server_alive_count_max = 1;
        KeepaliveWatch watch = KeepaliveWatch::for_host(zero, 5000ms, 2, watch_started);
        EXPECT_EQ(watch.deadline(), watch_started + 5000ms) << given;
        EXPECT_EQ(watch.check(watch_started + 5000ms, 0, false).action, Action::send) << given;
        EXPECT_EQ(watch.check(watch_started + 10000ms, 0, false).action, Action::lose) << given;
    }
    ClientConfig count_only;
    count_only.server_alive_count_max = 1;
    KeepaliveWatch watch = KeepaliveWatch::for_host(count_only, 5000ms, 2, watch_started);
    EXPECT_EQ(watch.deadline(), watch_started + 5000ms);
    EXPECT_EQ(watch.check(watch_started + 5000ms, 0, false).action, Action::send);
    EXPECT_EQ(watch.check(watch_started + 10000ms, 0, false).action, Action::lose);
}

} // namespace
} // namespace colossalai::ssh
