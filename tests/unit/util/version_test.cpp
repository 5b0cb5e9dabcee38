#include "colossalai/util/version.hpp"

#include <gtest/gtest.h>

namespace colossalai::util {
namespace {

struct ParseCase {
    const char* text;
    bool ok;
    int major;
    int minor;
    std::optional<int> patch;
};

class ParseVersion : public ::testing::TestWithParam<ParseCase> {};

TEST_P(ParseVersion, ParsesTheNumericComponents) {
    const ParseCase& c = GetParam();
    std::optional<Version> version = parse_version(c.text);
    ASSERT_EQ(version.has_value(), c.ok) << c.text;
    if (c.ok) {
        EXPECT_EQ(version->major, c.major) << c.text;
        EXPECT_EQ(version->minor, c.minor) << c.text;
        EXPECT_EQ(version->patch, c.patch) << c.text;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseVersion,
    ::testing::Values(ParseCase{"12.4", true, 12, 4, std::nullopt},
                      ParseCase{"12.10", true, 12, 10, std::nullopt},
                      ParseCase{"12.1", true, 12, 1, std::nullopt},
                      ParseCase{"2.1.0", true, 2, 1, 0}, ParseCase{"2.1.0+cu121", true, 2, 1, 0},
                      ParseCase{"1.13.0a0+gitabc", true, 1, 13, 0},
                      ParseCase{"1.13.0a0", true, 1, 13, 0}, ParseCase{"v12.4", true, 12, 4, {}},
                      ParseCase{"12", true, 12, 0, std::nullopt},
                      ParseCase{"13.0,", true, 13, 0, std::nullopt}, ParseCase{"", false, 0, 0, {}},
                      ParseCase{"None", false, 0, 0, {}}, ParseCase{"abc", false, 0, 0, {}},
                      ParseCase{"1..2", false, 0, 0, {}}, ParseCase{"1.x", false, 0, 0, {}},
                      ParseCase{".5", false, 0, 0, {}},
                      ParseCase{"99999999999999999999.1", false, 0, 0, {}}));

struct CompatibleCase {
    const char* a;
    const char* b;
    bool compatible;
};

class Compatible : public ::testing::TestWithParam<CompatibleCase> {};

TEST_P(Compatible, ComparesMajorAndMinorOnly) {
    const CompatibleCase& c = GetParam();
    auto a = parse_version(c.a);
    auto b = parse_version(c.b);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(compatible(*a, *b), c.compatible) << c.a << " vs " << c.b;
    EXPECT_EQ(compatible(*b, *a), c.compatible) << c.b << " vs " << c.a;
}

INSTANTIATE_TEST_SUITE_P(Table, Compatible,
                         ::testing::Values(CompatibleCase{"2.1.0", "2.1.5", true},
                                           CompatibleCase{"2.1.0", "2.2.0", false},
                                           CompatibleCase{"12.10", "12.1", false},
                                           CompatibleCase{"12.1", "12.1.105", true},
                                           CompatibleCase{"11.8", "12.8", false},
                                           CompatibleCase{"1.13.0a0+gitabc", "1.13", true},
                                           CompatibleCase{"1.11", "1.13", false}));

TEST(VersionOrder, OrdersByComponents) {
    EXPECT_LT(*parse_version("1.9"), *parse_version("1.10"));
    EXPECT_LT(*parse_version("1.13.1"), *parse_version("2.0"));
    EXPECT_LT(*parse_version("1.10"), *parse_version("1.10.0"));
    EXPECT_EQ(*parse_version("2.0.1"), *parse_version("2.0.1+cu118"));
}

struct NormalizeCase {
    const char* text;
    const char* expected;
};

class NormalizeRelease : public ::testing::TestWithParam<NormalizeCase> {};

TEST_P(NormalizeRelease, DropsLocalLabelAndExtraComponents) {
    EXPECT_EQ(normalize_release(GetParam().text), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Table, NormalizeRelease,
                         ::testing::Values(NormalizeCase{"2.1.0+cu121", "2.1.0"},
                                           NormalizeCase{"1.13.0a0+gitabc", "1.13.0a0"},
                                           NormalizeCase{"2.1.0.post1", "2.1.0"},
                                           NormalizeCase{"0.1.5+torch1.11cu11.3", "0.1.5"},
                                           NormalizeCase{"0.3.6", "0.3.6"},
                                           NormalizeCase{"2.1", "2.1"}, NormalizeCase{"", ""}));

} // namespace
} // namespace colossalai::util
