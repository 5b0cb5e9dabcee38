#pragma once

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <charconv>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

namespace colossalai::util {

// The one integer parser of src/: decimal as std::from_chars reads it, so every caller accepts
// the same text: digits, a leading '-' only for a signed T, no '+', no white space, no base
// prefix; a value that does not fit T is no value.

// The inclusive bounds an integer must lie within.
template <std::integral T>
struct IntegerRange {
    T min = std::numeric_limits<T>::min();
    T max = std::numeric_limits<T>::max();
};

// Reads an integer at the front of `text` and advances `text` past it; leaves `text` as it was
// and returns nothing when it does not begin with one (or the number does not fit T).
template <std::integral T>
std::optional<T> parse_integer_prefix(std::string_view& text) {
    T value{};
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) {
        return std::nullopt;
    }
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return value;
}

// The whole of `text` as an integer within `range`, or nothing (empty, trailing bytes, out of
// range, too large for T).
template <std::integral T>
std::optional<T> parse_integer(std::string_view text, IntegerRange<T> range = {}) {
    std::optional<T> value = parse_integer_prefix<T>(text);
    if (!value || !text.empty() || *value < range.min || *value > range.max) {
        return std::nullopt;
    }
    return value;
}

// An option's integer value: the whole of `text` within `range`, or a usage error that names
// the option, the text as given and what was expected: `<option> '<text>': <expected>`.
template <std::integral T>
T parse_integer_option(std::string_view text, std::string_view option, IntegerRange<T> range,
                       std::string_view expected) {
    if (std::optional<T> value = parse_integer<T>(text, range)) {
        return *value;
    }
    throw usage_error("{} '{}': {}", option, escape_for_message(text), expected);
}

} // namespace colossalai::util
