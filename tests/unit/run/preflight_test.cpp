#include "../usage_message.hpp"

#include "colossalai/run/preflight.hpp"

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

TEST(PreflightFailure, EachCheckSaysWhatToDo) {
    EXPECT_EQ(describe({PreflightCheck::master_address, "gpu1"}),
              "cannot resolve master address 'gpu1' (set --master_addr to an address every node "
              "can reach)");
    EXPECT_EQ(describe({PreflightCheck::working_directory, "/work/job"}),
              "no working directory '/work/job' (the launcher's current directory must exist on "
              "every node: a shared file system, or cd to a path that does)");
    EXPECT_EQ(describe({PreflightCheck::command, "torchrun"}),
              "cannot find 'torchrun' (on the node's PATH; give a Python that has PyTorch with "
              "--python PATH, or set the node's PATH with -x PATH=...)");
    EXPECT_EQ(describe({PreflightCheck::network_interface, "ib0"}),
              "no network interface 'ib0' (see 'ip -br link' on the node; --network-interface "
              "names must exist on every node)");
    // A subject is shown escaped: it is one line whatever it holds.
    EXPECT_EQ(describe({PreflightCheck::working_directory, "/a\nb"}).find('\n'), std::string::npos);
}

} // namespace
} // namespace colossalai::run
