// libFuzzer target: shell quoting. Property: for any words, shell_join() produces text that a
// POSIX shell splits back into exactly those words, with nothing expanded or executed. Checked
// in-process against a reference parser of the quoting we emit: bare safe characters, '...'
// segments (a shell expands nothing inside), and \' between segments; anything else unquoted
// (a space inside a word, $, `, ;, |, &, <, >, (, ), *, ?, [, ~, #, newline...) is a failure.

#include "fuzz_support.hpp"

#include "colossalai/util/quote.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

bool is_safe(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

// Splits `text` (words separated by one space) the way sh would, or nullopt when the text holds
// something a shell would interpret.
std::optional<std::vector<std::string>> reference_split(std::string_view text) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i <= text.size()) {
        std::string word;
        bool any = false;
        while (i < text.size() && text[i] != ' ') {
            char c = text[i];
            if (c == '\'') {
                size_t close = text.find('\'', i + 1);
                if (close == std::string_view::npos) {
                    return std::nullopt;
                }
                word.append(text.substr(i + 1, close - i - 1));
                i = close + 1;
            } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\'') {
                word += '\'';
                i += 2;
            } else if (is_safe(c)) {
                word += c;
                ++i;
            } else {
                return std::nullopt;
            }
            any = true;
        }
        if (!any) {
            return std::nullopt; // an empty word must be written ''
        }
        words.push_back(std::move(word));
        if (i == text.size()) {
            break;
        }
        ++i; // the one space between words
    }
    return words;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using colossalai::fuzz::require;
    // NUL cannot be in an argv word: it separates the words of this input.
    std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> words;
    size_t start = 0;
    while (true) {
        size_t end = input.find('\0', start);
        words.emplace_back(input.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }

    for (const std::string& word : words) {
        auto single = reference_split(colossalai::util::shell_quote(word));
        require(single.has_value(), "shell_quote produced text a shell would interpret");
        require(single->size() == 1 && single->front() == word, "shell_quote lost bytes");
    }
    std::string joined = colossalai::util::shell_join(words);
    auto split = reference_split(joined);
    require(split.has_value(), "shell_join produced text a shell would interpret");
    require(*split == words, "shell_join does not split back into the same words");
    // A first word with '=' would be taken for an assignment if it were not quoted.
    if (words.front().find('=') != std::string::npos) {
        require(joined.front() == '\'', "a first word with '=' is not quoted");
    }
    return 0;
}
