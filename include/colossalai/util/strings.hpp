#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::util {

// Removes ASCII whitespace (space, \t, \r, \n, \v, \f) from both ends.
std::string_view trim(std::string_view text);

// '0'..'9' only: std::isdigit depends on the locale and takes an int that a char may not fit.
constexpr bool is_ascii_digit(char c) {
    return c >= '0' && c <= '9';
}

// Splits at every `separator`; empty fields are kept ("a,,b" -> "a", "", "b"; "" -> "").
std::vector<std::string> split(std::string_view text, char separator);

// Splits into lines at \n, dropping a trailing \r from each; no empty last line for text
// that ends with a newline.
std::vector<std::string_view> split_lines(std::string_view text);

// The words of `text`, split at runs of spaces and tabs; no empty words ("" and "  " give none).
std::vector<std::string_view> split_blank_words(std::string_view text);

bool starts_with(std::string_view text, std::string_view prefix);

// `text` with the ASCII letters A-Z in lower case; other bytes (UTF-8 included) unchanged, so
// the result does not depend on the locale.
std::string ascii_lower(std::string_view text);

// True for a C identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(std::string_view text);

// Makes bytes printable for a one-line error message: control bytes and non-ASCII as \xNN.
std::string escape_for_message(std::string_view text);

// Makes a value printable on one line of a report while keeping UTF-8 text (a GPU or path name)
// readable: control bytes become \xNN and a backslash \\, so the escaping cannot be ambiguous.
std::string escape_control_bytes(std::string_view text);

} // namespace colossalai::util
