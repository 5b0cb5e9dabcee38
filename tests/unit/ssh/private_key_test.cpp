#include "colossalai/ssh/private_key.hpp"

#include <gtest/gtest.h>

#include <string>

// Whether a key needs a passphrase, from keys ssh-keygen (OpenSSH 9.2) wrote.
namespace colossalai::ssh {
namespace {

const std::string plain = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDydQqCeRUUvA5hOpF+ADrWYxEnm4+04N9+SC3RJrycUgAAAJAIfRbfCH0W
3wAAAAtzc2gtZWQyNTUxOQAAACDydQqCeRUUvA5hOpF+ADrWYxEnm4+04N9+SC3RJrycUg
AAAEBTOMar4uPjha+CJs2xujEmrHPmtbxgtYlOTIvMer55XfJ1CoJ5FRS8DmE6kX4AOtZj
ESebj7Tg335ILdEmvJxSAAAAB3Jvb3RAdm0BAgMEBQY=
-----END OPENSSH PRIVATE KEY-----
)";

const std::string with_passphrase = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABAeSlIYtR
sm+QCq6QVhDPdaAAAAEAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIOn4mK6oRm9+4Str
/3e2YVNPJ+MPjLxIi5lnmc9tQxdAAAAAkEL07Uyk17BaVKNI4e3SYRRamMZ44D5WSaAxc1
Sk4QP808mYp8YdKW4QU51wAPAJLbKKQ2uyMUYdx03mzJuj6TLzDUWmjKUWrSKU6ywbWKHF
mL0EDb1WlXH+Bprt3LwDvzS59aBUPE/snNqSpiT2qXelzquFXuxMJnl+7JiNgXNz/+amh6
SHJKv/Y3OMQbGhOw==
-----END OPENSSH PRIVATE KEY-----
)";

TEST(PrivateKey, OpenSshFormatIsEncryptedUnlessItsCipherIsNone) {
    EXPECT_FALSE(is_encrypted_private_key(plain));
    EXPECT_TRUE(is_encrypted_private_key(with_passphrase));
}

TEST(PrivateKey, PemAndPkcs8SayItInTheirHeaders) {
    EXPECT_TRUE(is_encrypted_private_key("-----BEGIN RSA PRIVATE KEY-----\n"
                                         "Proc-Type: 4,ENCRYPTED\n"
                                         "DEK-Info: AES-128-CBC,9AF491BAEB49A7E003BF0A1B7FED49F3\n"
                                         "\nAAAA\n-----END RSA PRIVATE KEY-----\n"));
    EXPECT_TRUE(is_encrypted_private_key("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"
                                         "-----END ENCRYPTED PRIVATE KEY-----\n"));
    EXPECT_FALSE(is_encrypted_private_key("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n"
                                          "-----END RSA PRIVATE KEY-----\n"));
}

TEST(PrivateKey, WhatIsNoKeyIsNotEncrypted) {
    EXPECT_FALSE(is_encrypted_private_key(""));
    EXPECT_FALSE(is_encrypted_private_key("ssh-ed25519 AAAA comment\n"));
    EXPECT_FALSE(is_encrypted_private_key("-----BEGIN OPENSSH PRIVATE KEY-----\n!!\n"
                                          "-----END OPENSSH PRIVATE KEY-----\n"));
}

} // namespace
} // namespace colossalai::ssh
