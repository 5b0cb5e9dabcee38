#include "colossalai/util/quote.hpp"

#include "colossalai/util/error.hpp"

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

std::vector<std::string> split_shell_words(std::string_view text, std::string_view option) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
            continue;
        }
        in_word = true;
        if (c == '\\') {
            if (++i < text.size()) {
                word += text[i];
            }
        } else if (c == '\'') {
            size_t end = text.find('\'', i + 1);
            if (end == std::string_view::npos) {
                throw usage_error("{}: unterminated ' quote", option);
            }
            word.append(text.substr(i + 1, end - i - 1));
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= text.size()) {
                    throw usage_error("{}: unterminated \" quote", option);
                }
                if (text[i] == '"') {
                    break;
                }
                if (text[i] == '\\' && i + 1 < text.size() &&
                    std::string_view("\\\"$`").find(text[i + 1]) != std::string_view::npos) {
                    ++i;
                }
                word += text[i];
            }
        } else {
            word += c;
        }
    }
    if (in_word) {
        words.push_back(std::move(word));
    }
    return words;
}

} // namespace colossalai::util
