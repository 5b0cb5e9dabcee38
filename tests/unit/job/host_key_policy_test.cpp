#include "colossalai/job/host_key_policy.hpp"

#include <gtest/gtest.h>

namespace colossalai::job {
namespace {

TEST(HostKeyPolicy, ParsesOpenSshSpellings) {
    EXPECT_EQ(parse_host_key_policy("yes"), HostKeyPolicy::yes);
    EXPECT_EQ(parse_host_key_policy("true"), HostKeyPolicy::yes);
    EXPECT_EQ(parse_host_key_policy("Accept-New"), HostKeyPolicy::accept_new);
    EXPECT_EQ(parse_host_key_policy("no"), HostKeyPolicy::no);
    EXPECT_EQ(parse_host_key_policy("OFF"), HostKeyPolicy::no);
    EXPECT_EQ(parse_host_key_policy("false"), HostKeyPolicy::no);
    EXPECT_EQ(parse_host_key_policy("ask"), HostKeyPolicy::ask);
}

TEST(HostKeyPolicy, RefusesAnythingElse) {
    EXPECT_EQ(parse_host_key_policy("accept"), std::nullopt);
    EXPECT_EQ(parse_host_key_policy(""), std::nullopt);
    EXPECT_EQ(parse_host_key_policy("yes "), std::nullopt);
    EXPECT_EQ(parse_host_key_policy("accept_new"), std::nullopt);
}

TEST(HostKeyPolicy, NamesRoundTrip) {
    for (HostKeyPolicy policy :
         {HostKeyPolicy::yes, HostKeyPolicy::accept_new, HostKeyPolicy::no, HostKeyPolicy::ask}) {
        EXPECT_EQ(parse_host_key_policy(host_key_policy_name(policy)), policy);
    }
    EXPECT_EQ(host_key_policy_name(HostKeyPolicy::accept_new), "accept-new");
}

} // namespace
} // namespace colossalai::job
