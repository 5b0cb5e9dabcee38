// StrictHostKeyChecking's table: what verify_host_key() does with each state libssh finds a
// host in, under each policy, once revoked keys and certificate authorities were dealt with.
// (The files, the lock and the messages are driven against real hosts: e2e run_ssh HostKeys*.)

#include "host_key_check.hpp"

#include <gtest/gtest.h>

namespace colossalai::ssh {
namespace {

using Verdict = HostKeyVerdict;

constexpr HostKeyPolicy every_policy[] = {HostKeyPolicy::yes, HostKeyPolicy::accept_new,
                                          HostKeyPolicy::no, HostKeyPolicy::ask};

TEST(HostKeyVerdict, AKnownKeyIsAcceptedUnderEveryPolicy) {
    for (HostKeyPolicy policy : every_policy) {
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_OK, policy), Verdict::accept)
            << host_key_policy_name(policy);
    }
}

TEST(HostKeyVerdict, AChangedKeyIsRefusedUnlessThePolicyIsNo) {
    for (HostKeyPolicy policy :
         {HostKeyPolicy::yes, HostKeyPolicy::accept_new, HostKeyPolicy::ask}) {
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_CHANGED, policy), Verdict::refuse_changed)
            << host_key_policy_name(policy);
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_OTHER, policy), Verdict::refuse_other_type)
            << host_key_policy_name(policy);
    }
    EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_CHANGED, HostKeyPolicy::no), Verdict::warn_changed);
    EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_OTHER, HostKeyPolicy::no), Verdict::warn_changed);
}

TEST(HostKeyVerdict, AnUnknownHostLeftUnlearnedIsRefused) {
    for (HostKeyPolicy policy : every_policy) {
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_UNKNOWN, policy), Verdict::refuse_unknown);
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_NOT_FOUND, policy), Verdict::refuse_unknown);
    }
}

TEST(HostKeyVerdict, AnErrorCannotBeChecked) {
    for (HostKeyPolicy policy : every_policy) {
        EXPECT_EQ(host_key_verdict(SSH_KNOWN_HOSTS_ERROR, policy), Verdict::cannot_check);
    }
}

TEST(HostKeyVerdict, OnlyAcceptNewAndNoLearnNewKeys) {
    EXPECT_TRUE(learns_new_keys(HostKeyPolicy::accept_new));
    EXPECT_TRUE(learns_new_keys(HostKeyPolicy::no));
    EXPECT_FALSE(learns_new_keys(HostKeyPolicy::yes));
    EXPECT_FALSE(learns_new_keys(HostKeyPolicy::ask)); // a launcher cannot ask
}

} // namespace
} // namespace colossalai::ssh
