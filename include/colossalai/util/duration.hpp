#pragma once

#include <chrono>
#include <string_view>

namespace colossalai::util {

// The range a duration option accepts, in milliseconds (the resolution of every timer here).
struct DurationRange {
    std::chrono::milliseconds min;
    std::chrono::milliseconds max;
};

// Parses a number of seconds as a user writes it for `option` ("30", "0.5", "1e2") into
// milliseconds, rounded to the nearest. Throws a one-line usage error naming `option` for text
// that is not a finite decimal number, and for a value outside `range` (so that no timer ever
// overflows, and no value rounds to a zero the option does not allow).
std::chrono::milliseconds parse_seconds(std::string_view text, std::string_view option,
                                        DurationRange range);

// "30", "0.5", "0.001": a duration in seconds as the options take it.
std::string format_seconds(std::chrono::milliseconds duration);

// poll()'s timeout for `deadline`: the milliseconds left, 0 once it passed, at most INT_MAX - 1
// (so that a caller may add one to round up).
int poll_timeout_ms(std::chrono::steady_clock::time_point deadline);

} // namespace colossalai::util
