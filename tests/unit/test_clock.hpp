#pragma once

// The time a unit test gives the code it drives (job::Now): it moves only when the test says.

#include "colossalai/job/process.hpp"

#include <atomic>
#include <chrono>

namespace colossalai::test {

// Read on the test's thread alone; atomic so that a stray reader elsewhere is no data race.
class TestClock {
public:
    static job::Clock::time_point now() {
        return job::Clock::time_point(std::chrono::milliseconds(s_ms.load()));
    }
    static void reset() { s_ms = 1'000'000; }
    static void advance(std::chrono::milliseconds by) { s_ms += by.count(); }

private:
    static inline std::atomic<long long> s_ms{1'000'000};
};

} // namespace colossalai::test
