#include "colossalai/util/version.hpp"

#include "colossalai/util/integer.hpp"

#include <cstddef>
#include <iterator>

namespace colossalai::util {

std::optional<Version> parse_version(std::string_view text) {
    if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) {
        text.remove_prefix(1);
    }
    if (text.empty() || text.front() < '0' || text.front() > '9') {
        return std::nullopt;
    }
    // MAJOR[.MINOR[.PATCH]], each number read up to what follows it ("12.1.105+cu121",
    // "2.1.0a0"); a '.' with no number after it is no version.
    std::optional<int> numbers[3];
    for (std::size_t i = 0; i < std::size(numbers); ++i) {
        if (i > 0) {
            if (text.empty() || text.front() != '.') {
                break;
            }
            text.remove_prefix(1);
        }
        numbers[i] = parse_integer_prefix<int>(text);
        if (!numbers[i]) {
            return std::nullopt;
        }
    }
    return Version{*numbers[0], numbers[1].value_or(0), numbers[2]};
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
