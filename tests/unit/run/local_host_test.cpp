#include "colossalai/run/local_host.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

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

TEST(LocalHostDetector, KnowsThisMachine) {
    LocalHostDetector is_local;
    std::string name = host_name();
    for (const std::string& text :
         {std::string("localhost"), std::string("127.0.0.1"), std::string("127.0.0.5"),
          std::string("::1"), std::string("0.0.0.0"), name, name.substr(0, name.find('.'))}) {
        EXPECT_TRUE(is_local(text)) << text;
    }
}

TEST(LocalHostDetector, KnowsTheAddressesOfItsInterfaces) {
    LocalHostDetector is_local;
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
        EXPECT_TRUE(is_local(text)) << text;
        ++checked;
    }
    freeifaddrs(interfaces);
    EXPECT_GT(checked, 0);
}

TEST(LocalHostDetector, RejectsOtherMachines) {
    LocalHostDetector is_local;
    // TEST-NET addresses (RFC 5737 / 3849): numeric, so no lookup leaves this machine.
    for (const char* text : {"192.0.2.1", "198.51.100.7", "2001:db8::1"}) {
        EXPECT_FALSE(is_local(text)) << text;
    }
    // A name that cannot resolve (.invalid is reserved, RFC 6761) is not local.
    EXPECT_FALSE(is_local("no-such-host.invalid"));
}

} // namespace
} // namespace colossalai::run
