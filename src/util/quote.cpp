#include "colossalai/util/quote.hpp"

#include <algorithm>

namespace colossalai::util {

namespace {

bool is_safe(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

std::string single_quote(std::string_view word) {
    std::string quoted;
    quoted.reserve(word.size() + 2);
    quoted += '\'';
    for (char c : word) {
        if (c == '\'') {
            quoted += "'\\''"; // close the quotes, an escaped quote, open again
        } else {
            quoted += c;
        }
    }
    quoted += '\'';
    return quoted;
}

} // namespace

std::string shell_quote(std::string_view word) {
    if (!word.empty() && std::all_of(word.begin(), word.end(), is_safe)) {
        return std::string(word);
    }
    return single_quote(word);
}

std::string shell_join(const std::vector<std::string>& words) {
    std::string command;
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0) {
            command += ' ';
        }
        if (i == 0 && words[i].find('=') != std::string::npos) {
            command += single_quote(words[i]);
        } else {
            command += shell_quote(words[i]);
        }
    }
    return command;
}

} // namespace colossalai::util
