#include "colossalai/util/version.hpp"

#include <charconv>

namespace colossalai::util {

namespace {

// Reads a run of decimal digits at the front of `text`; advances `text` past it.
std::optional<int> take_number(std::string_view& text) {
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data()) {
        return std::nullopt;
    }
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    return value;
}

} // namespace

std::optional<Version> parse_version(std::string_view text) {
    if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) {
        text.remove_prefix(1);
    }
    if (text.empty() || text.front() < '0' || text.front() > '9') {
        return std::nullopt;
    }
    Version version;
    auto major = take_number(text);
    if (!major) {
        return std::nullopt;
    }
    version.major = *major;
    if (text.empty() || text.front() != '.') {
        return version;
    }
    text.remove_prefix(1);
    auto minor = take_number(text);
    if (!minor) {
        return std::nullopt;
    }
    version.minor = *minor;
    if (text.empty() || text.front() != '.') {
        return version;
    }
    text.remove_prefix(1);
    auto patch = take_number(text);
    if (!patch) {
        return std::nullopt;
    }
    version.patch = patch;
    return version;
}

bool compatible(const Version& a, const Version& b) {
    return a.major == b.major && a.minor == b.minor;
}

std::string normalize_release(std::string_view text) {
    text = text.substr(0, text.find('+'));
    size_t dots = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '.' && ++dots == 3) {
            return std::string(text.substr(0, i));
        }
    }
    return std::string(text);
}

} // namespace colossalai::util
