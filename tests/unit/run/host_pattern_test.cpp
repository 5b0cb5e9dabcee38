#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/host_pattern.hpp"
#include "colossalai/run/hosts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using test::usage_message;

using test::names;

using Names = std::vector<std::string>;

TEST(ExpandHostPattern, KeepsTextWithoutBracketsAndIpv6Brackets) {
    EXPECT_EQ(expand_host_pattern("node1", "--host"), Names{"node1"});
    EXPECT_EQ(expand_host_pattern("[::1]", "--host"), Names{"[::1]"});
    EXPECT_EQ(expand_host_pattern("alice@[fe80::1%eth0]", "--host"), Names{"alice@[fe80::1%eth0]"});
}

TEST(ExpandHostPattern, ExpandsRangesInOrderKeepingZeroPadding) {
    EXPECT_EQ(expand_host_pattern("node[01-03]", "--host"), (Names{"node01", "node02", "node03"}));
    EXPECT_EQ(expand_host_pattern("n[8-11]", "--host"), (Names{"n8", "n9", "n10", "n11"}));
    EXPECT_EQ(expand_host_pattern("n[09-10]", "--host"), (Names{"n09", "n10"}));
    EXPECT_EQ(expand_host_pattern("gpu-a[001-002,010]", "--host"),
              (Names{"gpu-a001", "gpu-a002", "gpu-a010"}));
    EXPECT_EQ(expand_host_pattern("n[7]", "--host"), Names{"n7"});
    EXPECT_EQ(expand_host_pattern("[1-2].ib", "--host"), (Names{"1.ib", "2.ib"}));
}

TEST(ExpandHostPattern, SeveralBracketsVaryTheLeftmostSlowest) {
    EXPECT_EQ(expand_host_pattern("r[1-2]n[01-02]", "--host"),
              (Names{"r1n01", "r1n02", "r2n01", "r2n02"}));
    EXPECT_EQ(expand_host_pattern("r[1-2]n[01-02]", "--host").size(), 4U);
}

TEST(ExpandHostPattern, RefusesMalformedRangesNamingThem) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"n[5-1]", "--host: invalid host range 'n[5-1]': reversed range '5-1'"},
        {"n[1-2", "--host: invalid host range 'n[1-2': '[' without ']'"},
        {"n1-2]", "--host: invalid host range 'n1-2]': ']' without '['"},
        {"n[]", "--host: invalid host range 'n[]': empty brackets"},
        {"n[1,,2]", "--host: invalid host range 'n[1,,2]': empty item in brackets"},
        {"n[1,]", "--host: invalid host range 'n[1,]': empty item in brackets"},
        {"n[a-b]", "--host: invalid host range 'n[a-b]': 'a-b': not a number or range (such as "
                   "01-16)"},
        {"n[1-]", "--host: invalid host range 'n[1-]': '1-': empty bound"},
        {"n[-3]", "--host: invalid host range 'n[-3]': '-3': empty bound"},
        {"n[1-2-3]", "--host: invalid host range 'n[1-2-3]': '1-2-3': not a number or range "
                     "(such as 01-16)"},
        {"n[ 1]", "--host: invalid host range 'n[ 1]': ' 1': not a number or range (such as "
                  "01-16)"},
        {"n[[1]]", "--host: invalid host range 'n[[1]]': nested '['"},
        {"n[1234567890123456789]",
         "--host: invalid host range 'n[1234567890123456789]': '1234567890123456789': more than "
         "18 digits"},
        {"n[0-100000]", "--host: invalid host range 'n[0-100000]': expands to more than 100000 "
                        "hosts"},
        {"a[1-1000]b[1-1000]", "--host: invalid host range 'a[1-1000]b[1-1000]': expands to "
                               "more than 100000 hosts"},
        {"n[0-999999999999999999]", "--host: invalid host range 'n[0-999999999999999999]': "
                                    "expands to more than 100000 hosts"},
        {"n[\x01]", "--host: invalid host range 'n[\\x01]': '\\x01': not a number or range "
                    "(such as 01-16)"},
    };
    for (const auto& [pattern, message] : cases) {
        EXPECT_EQ(
            usage_message([&, &pattern = pattern] { expand_host_pattern(pattern, "--host"); }),
            message)
            << pattern;
    }
}

// As long as a hostfile line may be (1 MiB): no recursion that deep.
TEST(ExpandHostPattern, HundredsOfThousandsOfBracketsInOneName) {
    std::string pattern = "n";
    for (int i = 0; i < 300000; ++i) {
        pattern += "[7]";
    }
    std::vector<std::string> names = expand_host_pattern(pattern, "--host");
    ASSERT_EQ(names.size(), 1U);
    EXPECT_EQ(names[0], "n" + std::string(300000, '7'));
}

TEST(ExpandHostPattern, TheLimitIsExactAndSharedByTheCaller) {
    EXPECT_EQ(expand_host_pattern("n[1-100000]", "--host").size(), 100000U);
    EXPECT_EQ(expand_host_pattern("n[1-3]", "--host", 3).size(), 3U);
    EXPECT_EQ(usage_message([] { expand_host_pattern("n[1-4]", "--host", 3); }),
              "--host: invalid host range 'n[1-4]': the list expands to more than 100000 hosts");
    EXPECT_EQ(usage_message([] { expand_host_pattern("n1", "--host", 0); }),
              "--host: more than 100000 hosts");
}

TEST(SplitHostList, SplitsAtCommasOutsideBrackets) {
    using Views = std::vector<std::string_view>;
    EXPECT_EQ(split_host_list("gpu-a[001-004,010],gpu-b7"),
              (Views{"gpu-a[001-004,010]", "gpu-b7"}));
    EXPECT_EQ(split_host_list("a, b"), (Views{"a", " b"}));
    EXPECT_EQ(split_host_list("a,"), (Views{"a", ""}));
    EXPECT_EQ(split_host_list("a[1,2"), (Views{"a[1,2"}));
    EXPECT_EQ(split_host_list("a],b"), (Views{"a]", "b"}));
}

TEST(HostListRanges, ExpandEverywhereAHostListIsAccepted) {
    EXPECT_EQ(names(parse_host_list("gpu-a[001-002,010],gpu-b7", "--host")),
              (Names{"gpu-a001", "gpu-a002", "gpu-a010", "gpu-b7"}));
    EXPECT_EQ(names(parse_host_list(" node[1-2] , alice@[::1]", "--include")),
              (Names{"node1", "node2", "alice@[::1]"}));
    EXPECT_EQ(names(parse_hostfile("# rack 1\nr[1-2]n[01-02]  # four\nlogin\n", "hosts")),
              (Names{"r1n01", "r1n02", "r2n01", "r2n02", "login"}));
}

TEST(HostListRanges, DuplicatesAfterExpansionAreErrors) {
    EXPECT_EQ(usage_message([] { parse_host_list("node[1-3],node2", "--host"); }),
              "--host: duplicate host 'node2'");
    EXPECT_EQ(usage_message([] { parse_host_list("n[1,1]", "--exclude"); }),
              "--exclude: duplicate host 'n1'");
    EXPECT_EQ(usage_message([] { parse_hostfile("n[1-3]\nn[3-4]\n", "hosts"); }),
              "hosts:2: duplicate host 'n3' (first at line 1)");
}

TEST(HostListRanges, ErrorsNameTheItemAndTheLine) {
    EXPECT_EQ(usage_message([] { parse_host_list("a,n[3-1],b", "--host"); }),
              "--host: invalid host range 'n[3-1]': reversed range '3-1'");
    EXPECT_EQ(usage_message([] { parse_hostfile("a\nn[x]\n", "hosts"); }),
              "hosts:2: invalid host range 'n[x]': 'x': not a number or range (such as 01-16)");
    EXPECT_EQ(usage_message([] { parse_host_list("n[1-2];x", "--host"); }),
              "--host: invalid host 'n1;x': contains ';'");
}

TEST(HostListRanges, TheLimitCountsTheWholeListAndFile) {
    EXPECT_EQ(usage_message([] { parse_host_list("a[1-60000],b[1-60000]", "--host"); }),
              "--host: invalid host range 'b[1-60000]': the list expands to more than 100000 "
              "hosts");
    EXPECT_EQ(usage_message([] { parse_hostfile("a[1-100000]\nb\n", "hosts"); }),
              "hosts:2: more than 100000 hosts");
}

} // namespace
} // namespace colossalai::run
