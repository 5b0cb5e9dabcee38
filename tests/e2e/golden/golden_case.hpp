#pragma once

// The golden cases as data (tests/golden/cases.txt) and what a run of one renders to: the text
// its golden file holds. Pure functions; golden_test.cpp runs the binary.

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::test {

// A file (or a directory: `directory` set, no content) made in the case's directory first.
struct GoldenFile {
    std::string path; // relative to the case's directory
    std::string content;
    bool directory = false;
};

struct GoldenCase {
    std::string name;      // the golden file is <name>.golden
    bool has_args = false; // an `args` line was read (it may name no word)
    std::string args_line; // the `args` line as written, for the golden file's header
    std::vector<std::string> args;
    std::vector<GoldenFile> files;
    std::map<std::string, std::string> env; // added to the fixed environment
    // A fake python3 first on PATH whose site-packages hold this torch/version.py; none: no
    // python3 at all ("PyTorch not found").
    std::optional<std::string> torch;
};

// gtest prints a case by its name (not as a dump of its bytes) when a test fails.
void PrintTo(const GoldenCase& golden, std::ostream* out);

struct GoldenTable {
    std::vector<GoldenCase> cases;
    std::string error; // "cases.txt:LINE: why"; empty when the whole table was read
};

// The words of an `args` line, split at single spaces. Escapes: \s a space, \n, \r, \t, \\,
// \xNN any byte; the word "" alone is the empty word. Throws std::invalid_argument on a bad
// escape.
std::vector<std::string> split_words(std::string_view line);

// The same escapes in one piece of text (a file's line, an env value).
std::string unescape(std::string_view text);

// Reads the case table (its format is described at the top of tests/golden/cases.txt). `name`
// names the file in errors.
GoldenTable parse_cases(std::string_view text, const std::string& name);

// The one normalisation of anything that differs from run to run, so that a golden file holds
// only what the CLI decides: the case's scratch directory becomes $WORKDIR; an rdzv id the
// launcher made up (colossalai-<16 hex digits>) becomes colossalai-RDZVID; --version's commit and
// libssh lines lose the build's commit and the machine's libssh version.
std::string normalise(std::string text, const std::string& workdir);

// A golden file: a header naming the command, then the exit status, stdout and stderr (a stream
// that does not end with a newline is marked as diff does).
std::string render(const std::string& args_line, int exit_code, int signal, const std::string& out,
                   const std::string& err);

} // namespace colossalai::test
