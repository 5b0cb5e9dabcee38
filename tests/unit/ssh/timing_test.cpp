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
        host(start, {0, 1, 11, 12, 14, 20, 23, 30, 31, 33, 34}),
        host(start, {0, 2, 32, 33, 36, 40, 43, 50, 58, 59, 61}),
        host(start, {0, 4, -1, -1, -1, -1, -1, -1, -1, -1, -1}), // failed to connect
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
              "  first output                   7.0 /       7.0   done at      50.0   (2 hosts)\n"
              "  rest of the output             8.0 /       8.0   done at      58.0   (2 hosts)\n"
              "  exit status                    2.0 /       2.0   done at      59.0   (2 hosts)\n"
              "  close                          2.0 /       2.0   done at      61.0   (2 hosts)\n");
}

// The phases after the barrier are each host's own: one whose connection was lost before its
// output ended has no `rest of the output` and no `exit status`, and is counted in `close`.
TEST(Timing, AHostLostBeforeItsOutputEndedCountsOnlyInThePhasesItHad) {
    TimingClock::time_point start{};
    std::vector<HostTiming> hosts = {
        host(start, {0, 1, 2, 3, 4, 5, 6, 10, 20, 21, 22}),
        host(start, {0, 1, 2, 3, 4, 5, 6, 12, -1, 40, 45}), // lost after its first output
    };
    std::string text = render_timing(hosts, start);
    EXPECT_NE(text.find("  rest of the output            10.0 /      10.0   done at      20.0   "
                        "(1 hosts)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  exit status                    1.0 /       1.0   done at      21.0   "
                        "(1 hosts)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  close                          5.0 /       5.0   done at      45.0   "
                        "(2 hosts)\n"),
              std::string::npos)
        << text;
}

TEST(Timing, APhaseNoHostReachedIsADash) {
    TimingClock::time_point start{};
    std::string text =
        render_timing({host(start, {0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1})}, start);
    EXPECT_NE(text.find("  wait for a worker        -\n"), std::string::npos) << text;
}

} // namespace
} // namespace colossalai::ssh
