#include "colossalai/util/strings.hpp"

#include <gtest/gtest.h>

namespace colossalai::util {
namespace {

using namespace std::string_literals;

TEST(EscapeControlBytes, KeepsUtf8AndEscapesWhatWouldBreakTheLine) {
    EXPECT_EQ(escape_control_bytes("/usr/local/cuda-12.4"), "/usr/local/cuda-12.4");
    EXPECT_EQ(escape_control_bytes("/opt/cuda\nGPUs: 8"), "/opt/cuda\\x0aGPUs: 8");
    EXPECT_EQ(escape_control_bytes("a\tb\rc\x7f"), "a\\x09b\\x0dc\\x7f");
    EXPECT_EQ(escape_control_bytes("nul\0end"s), "nul\\x00end");
    EXPECT_EQ(escape_control_bytes("/home/j\xc3\xbcrgen"), "/home/j\xc3\xbcrgen");
    // A literal backslash is doubled, so "\x0a" in the output always means a newline byte.
    EXPECT_EQ(escape_control_bytes("a\\x0a"), "a\\\\x0a");
}

TEST(AsciiLower, LowersOnlyAsciiLetters) {
    EXPECT_EQ(ascii_lower("Node01.EXAMPLE.org"), "node01.example.org");
    EXPECT_EQ(ascii_lower(""), "");
    // UTF-8 bytes (here \xC3\x89, an accented capital E) and punctuation are left alone.
    EXPECT_EQ(ascii_lower("\xC3\x89-_@[]"), "\xC3\x89-_@[]");
}

} // namespace
} // namespace colossalai::util
