#pragma once

// Output as lines, for the tests that compare what a program printed line by line, and the
// summary block the launcher prints last.

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace colossalai::test {

// The lines of `text`, each without its '\n' (a last line without one counts too).
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    return lines;
}

// The lines of `text` that start with `prefix`, in order.
inline std::vector<std::string> lines_starting_with(const std::string& text,
                                                    const std::string& prefix) {
    std::vector<std::string> found;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind(prefix, 0) == 0) {
            found.push_back(line);
        }
    }
    return found;
}

// True when `line` is a whole line of `text` (ended by '\n').
inline bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

inline std::vector<std::string> sorted(std::vector<std::string> words) {
    std::sort(words.begin(), words.end());
    return words;
}

// The summary block the launcher prints last on stderr, for HOST_RESULTS ("node1: success"...).
inline std::string summary_block(const std::vector<std::string>& host_results) {
    std::string text = "====== Training on All Nodes =====\n";
    for (const std::string& result : host_results) {
        text += result + "\n";
    }
    return text;
}

} // namespace colossalai::test
