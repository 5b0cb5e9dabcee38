#include "usage_message.hpp"

#include "colossalai/run/network_interfaces.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

TEST(NetworkInterfaces, PlainNamesGoToNcclAndGlooAndMustExist) {
    NetworkInterfaces parsed = parse_network_interfaces("eth0,ib0");
    EXPECT_EQ(parsed.nccl, "eth0,ib0");
    EXPECT_EQ(parsed.gloo, "eth0,ib0");
    EXPECT_EQ(parsed.required, (Words{"eth0", "ib0"}));
}

TEST(NetworkInterfaces, ExactNamesKeepTheirEqualsSignForNcclOnly) {
    NetworkInterfaces parsed = parse_network_interfaces("=eth0");
    EXPECT_EQ(parsed.nccl, "=eth0");
    EXPECT_EQ(parsed.gloo, "eth0");
    EXPECT_EQ(parsed.required, (Words{"eth0"}));
}

TEST(NetworkInterfaces, AnExclusionIsForNcclAloneAndRequiresNothing) {
    // Gloo takes no exclusions: it is left to choose.
    for (const char* text : {"^docker,lo", "^=docker0"}) {
        NetworkInterfaces parsed = parse_network_interfaces(text);
        EXPECT_EQ(parsed.nccl, text);
        EXPECT_EQ(parsed.gloo, std::nullopt) << text;
        EXPECT_TRUE(parsed.required.empty()) << text;
    }
}

TEST(NetworkInterfaces, BadListsAreUsageErrorsNamingThePart) {
    auto message = [](const std::string& text) {
        return test::usage_message([&] { parse_network_interfaces(text); });
    };
    EXPECT_EQ(message(""), "--network-interface '': no interface name");
    EXPECT_EQ(message("^"), "--network-interface '^': no interface name");
    EXPECT_EQ(message("^="), "--network-interface '^=': no interface name");
    EXPECT_EQ(message("eth0,,ib0"), "--network-interface 'eth0,,ib0': an empty name");
    EXPECT_EQ(message("eth0,"), "--network-interface 'eth0,': an empty name");
    EXPECT_EQ(message("eth 0"), "--network-interface 'eth 0': 'eth 0' is not an interface name "
                                "(at most 15 letters, digits and _.:@-)");
    EXPECT_EQ(message("a234567890123456"),
              "--network-interface 'a234567890123456': 'a234567890123456' is not an interface "
              "name (at most 15 letters, digits and _.:@-)");
    EXPECT_EQ(message("eth/0"), "--network-interface 'eth/0': 'eth/0' is not an interface name "
                                "(at most 15 letters, digits and _.:@-)");
    EXPECT_NO_THROW(parse_network_interfaces("a23456789012345"));
    EXPECT_NO_THROW(parse_network_interfaces("bond0.100,eth1:1,veth-a_b@if2"));
}

} // namespace
} // namespace colossalai::run
