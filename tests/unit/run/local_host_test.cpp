#include "colossalai/run/local_host.hpp"
#include "colossalai/run/resolver.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

struct AddressCase {
    std::string text;
    AddressKind kind;
};

TEST(ClassifyAddress, TellsLoopbackUnspecifiedOtherAndNames) {
    const std::vector<AddressCase> cases = {
        {"127.0.0.1", AddressKind::loopback},
        {"127.0.0.5", AddressKind::loopback},
        {"127.255.255.254", AddressKind::loopback},
        {"::1", AddressKind::loopback},
        {"::ffff:127.0.0.2", AddressKind::loopback},
        {"0.0.0.0", AddressKind::unspecified},
        {"::", AddressKind::unspecified},
        {"10.0.0.1", AddressKind::other},
        {"128.0.0.1", AddressKind::other},
        {"192.0.2.1", AddressKind::other},
        {"2001:db8::1", AddressKind::other},
        {"::ffff:10.0.0.1", AddressKind::other},
        {"localhost", AddressKind::name},
        {"node1", AddressKind::name},
        {"127.1", AddressKind::name}, // not a dotted quad: left to the resolver
        {"", AddressKind::name},
        {"[::1]", AddressKind::name},
    };
    for (const AddressCase& c : cases) {
        EXPECT_EQ(classify_address(c.text), c.kind) << c.text;
    }
}

TEST(IsLoopback, IsLocalhostOrALoopbackAddress) {
    for (const char* text : {"localhost", "LocalHost", "127.0.0.1", "127.3.2.1", "::1"}) {
        EXPECT_TRUE(is_loopback(text)) << text;
    }
    for (const char* text : {"0.0.0.0", "10.0.0.1", "node1", "localhost.example.com", ""}) {
        EXPECT_FALSE(is_loopback(text)) << text;
    }
}

std::string host_name() {
    char buffer[256] = {};
    EXPECT_EQ(gethostname(buffer, sizeof buffer - 1), 0);
    return buffer;
}

bool local(LocalHostDetector& detector, const std::string& address) {
    return detector({address}).at(0);
}

TEST(LocalHostDetector, KnowsThisMachine) {
    LocalHostDetector detector;
    std::string name = host_name();
    for (const std::string& text :
         {std::string("localhost"), std::string("127.0.0.1"), std::string("127.0.0.5"),
          std::string("::1"), std::string("0.0.0.0"), name, name.substr(0, name.find('.'))}) {
        EXPECT_TRUE(local(detector, text)) << text;
    }
}

TEST(LocalHostDetector, KnowsTheAddressesOfItsInterfaces) {
    LocalHostDetector detector;
    ifaddrs* interfaces = nullptr;
    ASSERT_EQ(getifaddrs(&interfaces), 0);
    int checked = 0;
    for (const ifaddrs* entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) {
            continue;
        }
        char text[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr, text,
                  sizeof text);
        EXPECT_TRUE(local(detector, text)) << text;
        ++checked;
    }
    freeifaddrs(interfaces);
    EXPECT_GT(checked, 0);
}

TEST(LocalHostDetector, RejectsOtherMachines) {
    LocalHostDetector detector;
    // TEST-NET addresses (RFC 5737 / 3849): numeric, so no lookup leaves this machine.
    for (const char* text : {"192.0.2.1", "198.51.100.7", "2001:db8::1"}) {
        EXPECT_FALSE(local(detector, text)) << text;
    }
}

TEST(LocalHostDetector, AnswersForEveryAddressInOrder) {
    LocalHostDetector detector(MachineIdentity{{"me"}, {"10.1.2.3"}});
    EXPECT_EQ(detector({"192.0.2.1", "me", "10.1.2.3", "localhost", "192.0.2.1"}),
              (std::vector<bool>{false, true, true, true, false}));
}

const MachineIdentity machine{{"gpu7", "gpu7.example.com"}, {"10.1.2.3", "fe80::1"}};

TEST(LocalWithoutLookup, DecidesFromTheTextAlone) {
    for (const char* text : {"localhost", "LOCALHOST", "127.0.0.1", "127.1", "::1", "0.0.0.0",
                             "::", "gpu7", "GPU7.example.com", "10.1.2.3", "::ffff:127.0.0.1"}) {
        EXPECT_EQ(local_without_lookup(text, machine), std::optional<bool>(true)) << text;
    }
    for (const char* text : {"10.1.2.4", "192.0.2.1", "2001:db8::1", "10.9.9.1"}) {
        EXPECT_EQ(local_without_lookup(text, machine), std::optional<bool>(false)) << text;
    }
}

TEST(LocalWithoutLookup, LeavesNamesToTheLookup) {
    for (const char* text : {"gpu8", "gpu7.other.org", "node1"}) {
        EXPECT_EQ(local_without_lookup(text, machine), std::nullopt) << text;
    }
}

TEST(ResolvesToLocal, AnyLoopbackUnspecifiedOrInterfaceAddress) {
    EXPECT_TRUE(resolves_to_local({"192.0.2.1", "127.0.1.1"}, machine)); // Debian's host name
    EXPECT_TRUE(resolves_to_local({"10.1.2.3"}, machine));
    EXPECT_TRUE(resolves_to_local({"0.0.0.0"}, machine));
    EXPECT_FALSE(resolves_to_local({"10.1.2.4", "2001:db8::1"}, machine));
    EXPECT_FALSE(resolves_to_local({}, machine)); // did not resolve
}

TEST(ResolveConcurrently, AnswersEachNameInOrder) {
    // Numeric names and localhost (/etc/hosts): no query leaves this machine.
    auto answers =
        resolve_concurrently({"127.0.0.1", "localhost", "192.0.2.1"}, std::chrono::seconds(30));
    ASSERT_EQ(answers.size(), 3u);
    ASSERT_TRUE(answers[0] && answers[1] && answers[2]);
    EXPECT_EQ(*answers[0], std::vector<std::string>{"127.0.0.1"});
    EXPECT_TRUE(resolves_to_local(*answers[1], machine));
    EXPECT_EQ(*answers[2], std::vector<std::string>{"192.0.2.1"});
    EXPECT_TRUE(resolve_concurrently({}, std::chrono::seconds(1)).empty());
}

TEST(ResolveConcurrently, ANameWithoutAnAnswerInTimeHasNone) {
    auto answers = resolve_concurrently({"127.0.0.1"}, std::chrono::milliseconds(0));
    ASSERT_EQ(answers.size(), 1u);
    // Either it answered at once or it did not: never a made-up answer.
    if (answers[0]) {
        EXPECT_EQ(*answers[0], std::vector<std::string>{"127.0.0.1"});
    }
}

// The bound holds while answers keep coming: numeric names answer at once, so some child has
// always answered when the launcher looks, and it once went on asking past the bound until every
// name was answered (100,000 names that fail at once took seconds instead of one). Only the names
// asked before the bound may have an answer: with no time at all, the first name of each child.
// The old loop went on only when a child had answered by its first look, which is likely but not
// certain (the children start while the launcher forks the next): five tries.
TEST(ResolveConcurrently, AsksForNoNamePastTheBound) {
    std::vector<std::string> names(20 * max_concurrent_lookups, "127.0.0.1");
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto answers = resolve_concurrently(names, std::chrono::milliseconds(0));
        ASSERT_EQ(answers.size(), names.size());
        for (std::size_t i = max_concurrent_lookups; i < names.size(); ++i) {
            ASSERT_FALSE(answers[i]) << "name " << i << " was asked for past the bound";
        }
    }
}

// Nor is a resolver started past the bound: forks slow down with the machine's load (32 took a
// second at load 18), and the children started before the deadline answered what they were asked
// while the launcher went on forking. With no time at all, no child starts and no name has an
// answer; the old loop started all 32, and the first names had answered before its first look.
TEST(ResolveConcurrently, StartsNoResolverPastTheBound) {
    std::vector<std::string> names(2 * max_concurrent_lookups, "127.0.0.1");
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto answers = resolve_concurrently(names, std::chrono::milliseconds(0));
        ASSERT_EQ(answers.size(), names.size());
        for (std::size_t i = 0; i < names.size(); ++i) {
            ASSERT_FALSE(answers[i]) << "name " << i << " was looked up past the bound";
        }
    }
}

TEST(ResolveConcurrently, MoreNamesThanResolversAreAllAnswered) {
    // Every resolver child answers name after name: 3 rounds of max_concurrent_lookups.
    std::vector<std::string> names;
    for (std::size_t i = 0; i < 3 * max_concurrent_lookups; ++i) {
        names.push_back("127.0.0." + std::to_string(i + 1));
    }
    auto answers = resolve_concurrently(names, std::chrono::seconds(30));
    ASSERT_EQ(answers.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        ASSERT_TRUE(answers[i]) << names[i];
        EXPECT_EQ(*answers[i], std::vector<std::string>{names[i]});
    }
}

TEST(ResolverAnswer, ALineOfAddressesAndBack) {
    EXPECT_EQ(resolver_answer_line({"127.0.0.1", "::1"}), "127.0.0.1 ::1\n");
    EXPECT_EQ(resolver_answer_line({}), "\n"); // does not resolve: an empty answer, not none
    EXPECT_EQ(parse_resolver_answer("127.0.0.1 ::1"),
              (std::vector<std::string>{"127.0.0.1", "::1"}));
    EXPECT_EQ(parse_resolver_answer(""), std::vector<std::string>{});
    EXPECT_EQ(parse_resolver_answer("10.0.0.1"), std::vector<std::string>{"10.0.0.1"});
}

TEST(IsIpv6LinkLocal, Fe80Slash10WithOrWithoutAZone) {
    for (const char* address : {"fe80::1", "fe80::1%eth0", "FE80::a:b", "febf::1%2"}) {
        EXPECT_TRUE(is_ipv6_link_local(address)) << address;
    }
    for (const char* address : {"fec0::1", "fd00::1", "::1", "2001:db8::1", "169.254.1.1", "fe80",
                                "node1", "", "%eth0"}) {
        EXPECT_FALSE(is_ipv6_link_local(address)) << address;
    }
}

TEST(RouteSource, IsTheLocalEndOfTheRoute) {
    EXPECT_EQ(route_source("127.0.0.1"), std::optional<std::string>("127.0.0.1"));
    EXPECT_EQ(route_source("not-an-address"), std::nullopt);
}

TEST(LocalHostDetector, SourceTowardsAHostIsNeverLoopback) {
    LocalHostDetector detector;
    EXPECT_EQ(detector.source_towards("127.0.0.1"), std::nullopt);
    EXPECT_EQ(detector.source_towards("unresolved-name"), std::nullopt); // not looked up
}

} // namespace
} // namespace colossalai::run
