// StrictHostKeyChecking's table: what verify_host_key() does with each state libssh finds a
// host in, under each policy, once revoked keys and certificate authorities were dealt with.
// (The files, the lock and the messages are driven against real hosts: e2e run_ssh HostKeys*.)
// And the known_hosts lines libssh 0.10 does not read (it stops at the first line of 8,191
// bytes or more): verify_host_key() decides from its own reading of them (e2e:
// HostKeysOverSsh.HostsOnAndAfterALineLongerThanLibsshReadsAreKnown).

#include "host_key_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

std::string line_of(std::size_t bytes) {
    return std::string(bytes, 'a') + "\n";
}

TEST(FirstLineLibsshSkips, NoneInAFileOfShortLines) {
    EXPECT_EQ(first_line_libssh_skips(""), std::nullopt);
    EXPECT_EQ(first_line_libssh_skips("node1 ssh-ed25519 AAAA\nnode2 ssh-ed25519 BBBB\n"),
              std::nullopt);
    EXPECT_EQ(first_line_libssh_skips("node1 ssh-ed25519 AAAA"), std::nullopt); // no newline
}

TEST(FirstLineLibsshSkips, ALineAndItsNewlineMustFitIn8191Bytes) {
    EXPECT_EQ(first_line_libssh_skips(line_of(8190) + line_of(8190)), std::nullopt);
    EXPECT_EQ(first_line_libssh_skips(line_of(8191)), 1);
    EXPECT_EQ(first_line_libssh_skips("short\n\n" + line_of(8191) + line_of(10)), 3);
    EXPECT_EQ(first_line_libssh_skips("short\n" + std::string(8191, 'a')), 2); // last, unended
}

TEST(FirstLineLibsshSkips, TheFirstLongLineCounts) {
    EXPECT_EQ(first_line_libssh_skips("a\n" + line_of(9000) + "b\n" + line_of(20000)), 2);
}

TEST(StateFromSkippedLines, TheSameKeyAnywhereIsKnown) {
    std::vector<KeyMatch> lines = {KeyMatch::other_type, KeyMatch::same_type, KeyMatch::same_key};
    EXPECT_EQ(state_from_skipped_lines(lines), SSH_KNOWN_HOSTS_OK);
}

TEST(StateFromSkippedLines, AnotherKeyOfTheSameTypeIsAChange) {
    std::vector<KeyMatch> lines = {KeyMatch::other_type, KeyMatch::same_type};
    EXPECT_EQ(state_from_skipped_lines(lines), SSH_KNOWN_HOSTS_CHANGED);
}

TEST(StateFromSkippedLines, KeysOfOtherTypesOnlyAreOther) {
    std::vector<KeyMatch> lines = {KeyMatch::other_type, KeyMatch::other_type};
    EXPECT_EQ(state_from_skipped_lines(lines), SSH_KNOWN_HOSTS_OTHER);
}

TEST(StateFromSkippedLines, NoLineLeavesTheHostUnknown) {
    EXPECT_EQ(state_from_skipped_lines({}), SSH_KNOWN_HOSTS_UNKNOWN);
}

} // namespace
} // namespace colossalai::ssh
