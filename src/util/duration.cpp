#include "colossalai/util/duration.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <string>

namespace colossalai::util {

int poll_timeout_ms(std::chrono::steady_clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::clamp<long long>(left.count(), 0, INT_MAX - 1));
}

std::string format_seconds(std::chrono::milliseconds duration) {
    return fmt::format("{:g}", static_cast<double>(duration.count()) / 1000.0);
}

std::chrono::milliseconds parse_seconds(std::string_view text, std::string_view option,
                                        DurationRange range) {
    double seconds = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(seconds)) {
        throw usage_error("{} '{}': not a number of seconds", option, escape_for_message(text));
    }
    double milliseconds = std::round(seconds * 1000.0);
    if (milliseconds < static_cast<double>(range.min.count()) ||
        milliseconds > static_cast<double>(range.max.count())) {
        throw usage_error("{} '{}': must be from {} to {} seconds", option,
                          escape_for_message(text), format_seconds(range.min),
                          format_seconds(range.max));
    }
    return std::chrono::milliseconds(static_cast<long long>(milliseconds));
}

} // namespace colossalai::util
