#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::util {
namespace {

// What /bin/sh makes of a command line: runs it and returns its standard output.
std::string sh_output(const std::string& command) {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    EXPECT_NE(pipe, nullptr);
    std::string output;
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0) {
        output.append(buffer, n);
    }
    return output;
}

struct QuoteCase {
    std::string word;
    std::string quoted;
};

TEST(ShellQuote, ExactText) {
    const std::vector<QuoteCase> cases = {
        {"", "''"},
        {"train.py", "train.py"},
        {"--master_addr=10.0.0.1", "--master_addr=10.0.0.1"},
        {"user@host:/a/b,c+d%e", "user@host:/a/b,c+d%e"},
        {"a b", "'a b'"},
        {"it's", "'it'\\''s'"},
        {"'", "''\\'''"},
        {"$(id)", "'$(id)'"},
        {"`id`", "'`id`'"},
        {"a;b", "'a;b'"},
        {"~", "'~'"},
        {"#x", "'#x'"},
        {"*", "'*'"},
        {"a\nb", "'a\nb'"},
        {"\"q\"", "'\"q\"'"},
        {"back\\slash", "'back\\slash'"},
        {"caf\xc3\xa9", "'caf\xc3\xa9'"},
    };
    for (const QuoteCase& c : cases) {
        EXPECT_EQ(shell_quote(c.word), c.quoted) << c.word;
    }
}

// Hostile words: each must reach the program byte for byte and never be executed.
const std::vector<std::string> hostile = {
    "",
    " ",
    "plain",
    "two words",
    "it's",
    "''",
    "'\\''",
    "\"double\"",
    "back\\slash\\",
    "$HOME",
    "${HOME}",
    "$(echo executed)",
    "`echo executed`",
    "a;echo executed",
    "a&&echo executed",
    "a|cat",
    "a>file",
    "!history",
    "*",
    "?",
    "[ab]",
    "~",
    "~root",
    "#comment",
    "line1\nline2",
    "trailing newline\n",
    "\ttab\r\n",
    "\x01\x02\x1b[31mred",
    "\xff\xfe not utf-8 \x80",
    "caf\xc3\xa9",
    "a=b",
    "-n",
    "-e \\n",
    "%s%%",
};

TEST(ShellQuote, RoundTripsThroughTheShell) {
    for (const std::string& word : hostile) {
        EXPECT_EQ(sh_output("printf %s " + shell_quote(word)), word)
            << "quoted: " << shell_quote(word);
    }
}

TEST(ShellJoin, RoundTripsEveryWordThroughTheShell) {
    std::vector<std::string> words = {"printf", "%s\\0"};
    words.insert(words.end(), hostile.begin(), hostile.end());
    std::string expected;
    for (const std::string& word : hostile) {
        expected += word;
        expected += '\0';
    }
    EXPECT_EQ(sh_output(shell_join(words)), expected);
}

TEST(ShellJoin, JoinsWithSingleSpaces) {
    EXPECT_EQ(shell_join({"torchrun", "--nnodes=2", "train.py", "a b", ""}),
              "torchrun --nnodes=2 train.py 'a b' ''");
    EXPECT_EQ(shell_join({}), "");
}

TEST(ShellJoin, QuotesAFirstWordThatLooksLikeAnAssignment) {
    EXPECT_EQ(shell_join({"a=b", "c=d"}), "'a=b' c=d");
    EXPECT_EQ(sh_output(shell_join({"A=1", "true"}) + " 2>/dev/null; echo $?"), "127\n");
}

} // namespace
} // namespace colossalai::util
