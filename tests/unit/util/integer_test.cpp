#include "colossalai/util/integer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace colossalai::util {
namespace {

TEST(ParseInteger, ReadsTheWholeTextAsADecimalNumber) {
    EXPECT_EQ(parse_integer<int>("0"), 0);
    EXPECT_EQ(parse_integer<int>("42"), 42);
    EXPECT_EQ(parse_integer<int>("007"), 7); // leading zeros are digits like any other
    EXPECT_EQ(parse_integer<std::uint64_t>("18446744073709551615"),
              std::numeric_limits<std::uint64_t>::max());
}

TEST(ParseInteger, RefusesEmptyTextAndTrailingOrLeadingJunk) {
    for (std::string_view text : {"", " 1", "1 ", "1x", "x1", "0x10", "1.5", "1e3", "--1", "-"}) {
        EXPECT_EQ(parse_integer<int>(text), std::nullopt) << "'" << text << "'";
    }
}

TEST(ParseInteger, TakesAMinusForSignedTypesOnlyAndNeverAPlus) {
    EXPECT_EQ(parse_integer<int>("-1"), -1);
    EXPECT_EQ(parse_integer<int>("-0"), 0);
    EXPECT_EQ(parse_integer<unsigned>("-1"), std::nullopt);
    EXPECT_EQ(parse_integer<int>("+1"), std::nullopt);
}

TEST(ParseInteger, RefusesANumberThatDoesNotFitTheType) {
    EXPECT_EQ(parse_integer<int>("2147483647"), 2147483647);
    EXPECT_EQ(parse_integer<int>("2147483648"), std::nullopt);
    EXPECT_EQ(parse_integer<int>("-2147483648"), std::numeric_limits<int>::min());
    EXPECT_EQ(parse_integer<int>("-2147483649"), std::nullopt);
    EXPECT_EQ(parse_integer<std::uint64_t>("18446744073709551616"), std::nullopt);
    EXPECT_EQ(parse_integer<int>("99999999999999999999999"), std::nullopt);
}

TEST(ParseInteger, KeepsToTheRangeIncludingItsBounds) {
    IntegerRange<int> port{.min = 1, .max = 65535};
    EXPECT_EQ(parse_integer<int>("1", port), 1);
    EXPECT_EQ(parse_integer<int>("65535", port), 65535);
    EXPECT_EQ(parse_integer<int>("0", port), std::nullopt);
    EXPECT_EQ(parse_integer<int>("65536", port), std::nullopt);
    EXPECT_EQ(parse_integer<int>("-1", port), std::nullopt);
    EXPECT_EQ(parse_integer<int>("00", {.min = 1}), std::nullopt); // zero however it is written
}

TEST(ParseIntegerPrefix, ReadsTheDigitsAtTheFrontAndAdvancesPastThem) {
    std::string_view text = "11.7rc1";
    EXPECT_EQ(parse_integer_prefix<int>(text), 11);
    EXPECT_EQ(text, ".7rc1");
    std::string_view whole = "8";
    EXPECT_EQ(parse_integer_prefix<int>(whole), 8);
    EXPECT_EQ(whole, "");
}

TEST(ParseIntegerPrefix, LeavesTheTextAsItWasWhenNoNumberBeginsIt) {
    for (std::string_view given : {"", ".7", " 7", "+7", "x", "99999999999 gpus"}) {
        std::string_view text = given;
        EXPECT_EQ(parse_integer_prefix<int>(text), std::nullopt) << "'" << given << "'";
        EXPECT_EQ(text, given);
    }
}

TEST(ParseIntegerOption, ReturnsTheValueWithinTheRange) {
    EXPECT_EQ(parse_integer_option<int>("29500", "--master_port", {.min = 1, .max = 65535},
                                        "not a port number (1..65535)"),
              29500);
}

TEST(ParseIntegerOption, NamesTheOptionTheTextAndWhatWasExpectedInAUsageError) {
    for (std::string_view text : {"", "0", "65536", "12ab", "-5"}) {
        try {
            parse_integer_option<int>(text, "--master_port", {.min = 1, .max = 65535},
                                      "not a port number (1..65535)");
            ADD_FAILURE() << "no error for '" << text << "'";
        } catch (const Error& error) {
            EXPECT_EQ(error.kind(), Error::Kind::usage);
            EXPECT_EQ(error.what(),
                      fmt::format("--master_port '{}': not a port number (1..65535)", text));
        }
    }
}

TEST(ParseIntegerOption, ShowsControlBytesOfTheTextEscaped) {
    try {
        parse_integer_option<int>("1\n", "--ssh-port", {}, "not a number");
        ADD_FAILURE() << "no error";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "--ssh-port '1\\x0a': not a number");
    }
}

} // namespace
} // namespace colossalai::util
