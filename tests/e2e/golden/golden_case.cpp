#include "golden_case.hpp"

#include <regex>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace colossalai::test {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool is_case_name(std::string_view name) {
    if (name.empty()) {
        return false;
    }
    for (char c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

std::string with_newline_mark(const std::string& text) {
    if (text.empty() || text.back() == '\n') {
        return text;
    }
    return text + "\n\\ No newline at end\n";
}

} // namespace

void PrintTo(const GoldenCase& golden, std::ostream* out) {
    *out << golden.name;
}

std::string unescape(std::string_view text) {
    std::string result;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            result += text[i];
            continue;
        }
        if (i + 1 >= text.size()) {
            throw std::invalid_argument("a '\\' at the end");
        }
        char c = text[++i];
        switch (c) {
        case 's':
            result += ' ';
            break;
        case 'n':
            result += '\n';
            break;
        case 'r':
            result += '\r';
            break;
        case 't':
            result += '\t';
            break;
        case '\\':
            result += '\\';
            break;
        case 'x': {
            int high = i + 1 < text.size() ? hex_digit(text[i + 1]) : -1;
            int low = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
            if (high < 0 || low < 0) {
                throw std::invalid_argument("\\x needs two hex digits");
            }
            result += static_cast<char>(high * 16 + low);
            i += 2;
            break;
        }
        default:
            throw std::invalid_argument(std::string("unknown escape \\") + c);
        }
    }
    return result;
}

std::vector<std::string> split_words(std::string_view line) {
    std::vector<std::string> words;
    size_t start = 0;
    while (start <= line.size()) {
        size_t end = line.find(' ', start);
        if (end == std::string_view::npos) {
            end = line.size();
        }
        std::string_view word = line.substr(start, end - start);
        if (word.empty()) {
            throw std::invalid_argument("two spaces in a row, or a space at an end (write \\s)");
        }
        words.push_back(word == "\"\"" ? std::string() : unescape(word));
        start = end + 1;
    }
    return words;
}

GoldenTable parse_cases(std::string_view text, const std::string& name) {
    GoldenTable table;
    std::istringstream in{std::string(text)};
    int number = 0;
    GoldenFile* open_file = nullptr; // the file whose content lines come, until `end`
    auto fail = [&](const std::string& why) {
        table.error = name + ":" + std::to_string(number) + ": " + why;
        table.cases.clear();
        return table;
    };
    for (std::string line; std::getline(in, line);) {
        ++number;
        try {
            if (open_file != nullptr) {
                if (line == "end") {
                    open_file = nullptr;
                } else {
                    open_file->content += unescape(line) + "\n";
                }
                continue;
            }
            if (line.empty() || line[0] == '#') {
                continue;
            }
            size_t space = line.find(' ');
            std::string keyword = line.substr(0, space);
            std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
            if (keyword == "case") {
                if (!is_case_name(rest)) {
                    return fail("a case name is a-z, 0-9 and _: '" + rest + "'");
                }
                for (const GoldenCase& earlier : table.cases) {
                    if (earlier.name == rest) {
                        return fail("case '" + rest + "' is named twice");
                    }
                }
                GoldenCase added;
                added.name = rest;
                table.cases.push_back(std::move(added));
                continue;
            }
            if (table.cases.empty()) {
                return fail("'" + keyword + "' before the first case");
            }
            GoldenCase& current = table.cases.back();
            if (keyword == "args") {
                current.has_args = true;
                current.args_line = rest;
                current.args = rest.empty() ? std::vector<std::string>{} : split_words(rest);
            } else if (keyword == "file" || keyword == "directory") {
                if (rest.empty()) {
                    return fail(keyword + " needs a path");
                }
                GoldenFile file;
                file.path = unescape(rest);
                file.directory = keyword == "directory";
                current.files.push_back(std::move(file));
                if (keyword == "file") {
                    open_file = &current.files.back();
                }
            } else if (keyword == "env") {
                size_t equals = rest.find('=');
                if (equals == std::string::npos || equals == 0) {
                    return fail("expected env NAME=VALUE");
                }
                current.env[rest.substr(0, equals)] = unescape(rest.substr(equals + 1));
            } else if (keyword == "torch") {
                if (rest.empty()) {
                    return fail("torch needs a version");
                }
                current.torch = rest;
            } else {
                return fail("unknown keyword '" + keyword + "'");
            }
        } catch (const std::invalid_argument& e) {
            return fail(e.what());
        }
    }
    if (open_file != nullptr) {
        return fail("a file without its 'end' line");
    }
    for (const GoldenCase& c : table.cases) {
        if (!c.has_args) {
            table.error = name + ": case '" + c.name + "' has no args line";
            table.cases.clear();
            break;
        }
    }
    return table;
}

std::string normalise(std::string text, const std::string& workdir) {
    for (size_t at = text.find(workdir); !workdir.empty() && at != std::string::npos;
         at = text.find(workdir, at)) {
        text.replace(at, workdir.size(), "$WORKDIR");
    }
    static const std::regex rdzv_id("colossalai-[0-9a-f]{16}\\b");
    text = std::regex_replace(text, rdzv_id, "colossalai-RDZVID");
    // --version's whole stdout (no multiline regex: `^` is the start of the text).
    static const std::regex version("^(colossalai [^\n]+\n)commit [^\n]+\nlibssh [0-9][^\n]*");
    return std::regex_replace(text, version, "$1commit COMMIT\nlibssh VERSION",
                              std::regex_constants::format_first_only);
}

std::string render(const std::string& args_line, int exit_code, int signal, const std::string& out,
                   const std::string& err) {
    std::string status =
        signal != 0 ? "signal " + std::to_string(signal) : "exit " + std::to_string(exit_code);
    return "$ colossalai" + (args_line.empty() ? "" : " " + args_line) + "\n--- " + status +
           "\n--- stdout\n" + with_newline_mark(out) + "--- stderr\n" + with_newline_mark(err);
}

} // namespace colossalai::test
