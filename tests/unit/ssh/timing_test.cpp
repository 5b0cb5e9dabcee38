#include "colossalai/ssh/timing.hpp"

#include <gtest/gtest.h>

namespace colossalai::ssh {
namespace {

using std::chrono::milliseconds;

HostTiming host(TimingClock::time_point start, std::vector<int> offsets_ms) {
    HostTiming timing;
    for (std::size_t i = 0; i < offsets_ms.size(); ++i) {
        if (offsets_ms[i] >= 0) {
            timing.marks[i] = start + milliseconds(offsets_ms[i]);
        }
    }
    return timing;
}

TEST(Timing, MedianMaxAndWhenTheLastHostEndedEachPhase) {
    TimingClock::time_point start{};
    std::vector<HostTiming> hosts = {
        host(start, {0, 1, 11, 12, 14, 20, 23, 30}), host(start, {0, 2, 32, 33, 36, 40, 43, 50}),
        host(start, {0, 4, -1, -1, -1, -1, -1, -1}), // failed to connect
    };
    EXPECT_EQ(render_timing(hosts, start),
              "colossalai: timing of 3 SSH hosts, ms: phase median / max, and when the last host "
              "ended it (since the launch began)\n"
              "  wait for a worker              2.0 /       4.0   done at       4.0   (3 hosts)\n"
              "  connect + key exchange        30.0 /      30.0   done at      32.0   (2 hosts)\n"
              "  host key check                 1.0 /       1.0   done at      33.0   (2 hosts)\n"
              "  authentication                 3.0 /       3.0   done at      36.0   (2 hosts)\n"
              "  channel + preflight            6.0 /       6.0   done at      40.0   (2 hosts)\n"
              "  wait for all hosts             3.0 /       3.0   done at      43.0   (2 hosts)\n"
              "  first output                   7.0 /       7.0   done at      50.0   (2 hosts)\n");
}

TEST(Timing, APhaseNoHostReachedIsADash) {
    TimingClock::time_point start{};
    std::string text = render_timing({host(start, {0, -1, -1, -1, -1, -1, -1, -1})}, start);
    EXPECT_NE(text.find("  wait for a worker        -\n"), std::string::npos) << text;
}

} // namespace
} // namespace colossalai::ssh
