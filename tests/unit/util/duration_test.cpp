#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"

#include <gtest/gtest.h>

namespace colossalai::util {
namespace {

using namespace std::chrono_literals;

constexpr DurationRange hour{0ms, 3600s};

std::string message_of(std::string_view text, DurationRange range) {
    try {
        parse_seconds(text, "--grace", range);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), Error::Kind::usage);
        return e.what();
    }
    return "(accepted)";
}

TEST(Duration, SecondsAsUsersWriteThem) {
    EXPECT_EQ(parse_seconds("30", "--grace", hour), 30s);
    EXPECT_EQ(parse_seconds("0.5", "--grace", hour), 500ms);
    EXPECT_EQ(parse_seconds("1e2", "--grace", hour), 100s);
    EXPECT_EQ(parse_seconds("0", "--grace", hour), 0ms);
    EXPECT_EQ(parse_seconds("3600", "--grace", hour), 3600s);
    EXPECT_EQ(parse_seconds("0.0004", "--grace", hour), 0ms); // rounds to the nearest ms
    EXPECT_EQ(parse_seconds("0.0015", "--grace", hour), 2ms);
}

TEST(Duration, TextThatIsNoNumberOfSeconds) {
    for (std::string_view text : {"", "soon", "1s", " 1", "1 ", "inf", "nan", "-inf", "0x10"}) {
        EXPECT_EQ(message_of(text, hour),
                  fmt::format("--grace '{}': not a number of seconds", text));
    }
}

TEST(Duration, ValuesOutsideTheRangeNeverOverflow) {
    EXPECT_EQ(message_of("-1", hour), "--grace '-1': must be from 0 to 3600 seconds");
    EXPECT_EQ(message_of("3600.001", hour), "--grace '3600.001': must be from 0 to 3600 seconds");
    EXPECT_EQ(message_of("1e18", hour), "--grace '1e18': must be from 0 to 3600 seconds");
    EXPECT_EQ(message_of("1e308", hour), "--grace '1e308': must be from 0 to 3600 seconds");
    constexpr DurationRange positive{100ms, 3600s};
    EXPECT_EQ(message_of("0.0001", positive), "--grace '0.0001': must be from 0.1 to 3600 seconds");
    EXPECT_EQ(message_of("0.09", positive), "--grace '0.09': must be from 0.1 to 3600 seconds");
    EXPECT_EQ(parse_seconds("0.1", "--grace", positive), 100ms);
}

TEST(Duration, FormattedAsTheOptionsTakeThem) {
    EXPECT_EQ(format_seconds(30s), "30");
    EXPECT_EQ(format_seconds(100ms), "0.1");
    EXPECT_EQ(format_seconds(1ms), "0.001");
    EXPECT_EQ(format_seconds(0ms), "0");
}

} // namespace
} // namespace colossalai::util
