#include "colossalai/ssh/host_key_advice.hpp"

#include <gtest/gtest.h>

// The commands the host key errors advise (their effect on a real known_hosts is proven by
// tests/e2e/run_ssh/launch/config_test.cpp).
namespace colossalai::ssh {
namespace {

TEST(HostKeyAdvice, KnownHostsNameBracketsOtherPorts) {
    EXPECT_EQ(known_hosts_name("node2", 22), "node2");
    EXPECT_EQ(known_hosts_name("node2", 2222), "[node2]:2222");
    EXPECT_EQ(known_hosts_name("10.0.0.1", 2200), "[10.0.0.1]:2200");
    EXPECT_EQ(known_hosts_name("::1", 2222), "[::1]:2222");
}

TEST(HostKeyAdvice, KeyscanNamesThePortUnless22) {
    EXPECT_EQ(keyscan_command("node2", 22), "ssh-keyscan node2 >> ~/.ssh/known_hosts");
    EXPECT_EQ(keyscan_command("node2", 2222), "ssh-keyscan -p 2222 node2 >> ~/.ssh/known_hosts");
}

TEST(HostKeyAdvice, ForgetUsesTheKnownHostsNameQuoted) {
    EXPECT_EQ(forget_key_command("node2", 22), "ssh-keygen -R node2");
    EXPECT_EQ(forget_key_command("node2", 2222), "ssh-keygen -R '[node2]:2222'");
    EXPECT_EQ(forget_key_command("fe80::1%eth0", 22), "ssh-keygen -R fe80::1%eth0");
}

TEST(HostKeyAdvice, AHostNameFromTheConfigCannotInjectCommands) {
    // HostName in ~/.ssh/config is not checked like the command line's hosts.
    EXPECT_EQ(keyscan_command("a;b", 22), "ssh-keyscan 'a;b' >> ~/.ssh/known_hosts");
    EXPECT_EQ(forget_key_command("a b", 2222), "ssh-keygen -R '[a b]:2222'");
}

} // namespace
} // namespace colossalai::ssh
