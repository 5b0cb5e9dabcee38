#include "usage_message.hpp"

#include "colossalai/run/master.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace colossalai::run {
namespace {

TEST(CheckedPort, AcceptsOneTo65535) {
    EXPECT_EQ(checked_port(1, "--master_port"), Port{1});
    EXPECT_EQ(checked_port(65535, "--ssh-port"), Port{65535});
}

TEST(CheckedPort, NamesTheNumberAndTheOptionOutsideTheRange) {
    const std::vector<std::pair<int, std::string>> cases = {
        {0, "--master_port '0': not a port number (1..65535)"},
        {65536, "--master_port '65536': not a port number (1..65535)"},
        {-1, "--master_port '-1': not a port number (1..65535)"},
    };
    for (const auto& [number, message] : cases) {
        EXPECT_EQ(
            test::usage_message([&, &number = number] { checked_port(number, "--master_port"); }),
            message)
            << number;
    }
}

TEST(ParseMasterAddress, TakesAHostAndDropsIpv6Brackets) {
    EXPECT_EQ(parse_master_address("[::1]", "--master_addr"), MasterAddress{"::1"});
    EXPECT_EQ(parse_master_address("::1", "--master_addr"), MasterAddress{"::1"});
    EXPECT_EQ(parse_master_address("node0", "--master_addr"), MasterAddress{"node0"});
    EXPECT_EQ(parse_master_address("10.0.0.1", "--master_addr"), MasterAddress{"10.0.0.1"});
    EXPECT_EQ(default_master_address(), MasterAddress{"127.0.0.1"});
}

TEST(ParseMasterAddress, RefusesABadHostAndAUserPart) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a b", "--master_addr: invalid host 'a b': contains whitespace (one host per line or "
                "per comma-separated item)"},
        {"u@h", "--master_addr 'u@h': an address has no user part"},
    };
    for (const auto& [text, message] : cases) {
        EXPECT_EQ(
            test::usage_message([&, &text = text] { parse_master_address(text, "--master_addr"); }),
            message)
            << text;
    }
}

TEST(TakeExtraMaster, TakesMasterAddrAndPortOutTyped) {
    std::vector<LaunchArg> args =
        parse_extra_launch_args("rdzv_conf=timeout=900,master_port=1234,master-addr=[::1],tee=1");
    ExtraMaster master = take_extra_master(args);
    EXPECT_EQ(master, (ExtraMaster{MasterAddress{"::1"}, Port{1234}}));
    EXPECT_EQ(args, parse_extra_launch_args("rdzv_conf=timeout=900,tee=1"));

    std::vector<LaunchArg> none = parse_extra_launch_args("tee=1");
    EXPECT_EQ(take_extra_master(none), ExtraMaster{});
    EXPECT_EQ(none, parse_extra_launch_args("tee=1"));
}

TEST(TakeExtraMaster, RefusesABadAddressOrPort) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"master_port=http", "--extra_launch_args: master_port 'http': not a port number "
                             "(1..65535)"},
        {"master_port=70000", "--extra_launch_args: master_port '70000': not a port number "
                              "(1..65535)"},
        {"master_port=0", "--extra_launch_args: master_port '0': not a port number (1..65535)"},
        {"master_addr=$(id)", "--extra_launch_args master_addr: invalid host '$(id)': contains "
                              "'$'"},
        {"master_addr=u@h", "--extra_launch_args master_addr 'u@h': an address has no user "
                            "part"},
    };
    for (const auto& [text, message] : cases) {
        std::vector<LaunchArg> args = parse_extra_launch_args(text);
        EXPECT_EQ(test::usage_message([&] { take_extra_master(args); }), message) << text;
    }
}

} // namespace
} // namespace colossalai::run
