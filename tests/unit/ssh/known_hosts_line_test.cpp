#include "colossalai/ssh/known_hosts_line.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::ssh {
namespace {

std::string hex(const Sha1Digest& digest) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    for (unsigned char byte : digest) {
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

TEST(Sha1, MatchesTheStandardVectors) {
    EXPECT_EQ(hex(sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(hex(sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
    // Two blocks (56 bytes: the length no longer fits the first one).
    EXPECT_EQ(hex(sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
              "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

TEST(Sha1, HmacMatchesRfc2202) {
    EXPECT_EQ(hex(hmac_sha1(std::string(20, '\x0b'), "Hi There")),
              "b617318655057264e28bc0b6fb378c8ef146be00");
    EXPECT_EQ(hex(hmac_sha1("Jefe", "what do ya want for nothing?")),
              "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
    // A key longer than a block is hashed first.
    EXPECT_EQ(hex(hmac_sha1(std::string(80, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First")),
              "aa4ae5e15272d00e95705637ce8a3b55ed402112");
}

// The salt and the line `ssh-keygen -H` (OpenSSH 9.2) wrote for node1.
const std::string salt = "\xe3\xd6\x6a\x1d\x2c\xd4\x67\x32\x20\x8f\xef\xd5\x7e\x3a\xfd\x6e\x68"
                         "\xd0\x1c\xc3";
const std::string key = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";

TEST(KnownHostsLine, HashedNameIsWhatSshKeygenWrites) {
    EXPECT_EQ(hashed_host_name("node1", salt),
              "|1|49ZqHSzUZzIgj+/Vfjr9bmjQHMM=|FVqJxkjyYST5jhpHpKcJ5xSjuYc=");
    EXPECT_EQ(known_hosts_line("node1", "ssh-ed25519", key, salt),
              "|1|49ZqHSzUZzIgj+/Vfjr9bmjQHMM=|FVqJxkjyYST5jhpHpKcJ5xSjuYc= ssh-ed25519 " + key +
                  "\n");
}

TEST(KnownHostsLine, PlainWithoutSalt) {
    EXPECT_EQ(known_hosts_line("[node1]:2222", "ssh-ed25519", key, ""),
              "[node1]:2222 ssh-ed25519 " + key + "\n");
}

} // namespace
} // namespace colossalai::ssh
