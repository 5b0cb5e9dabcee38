#include "colossalai/ssh/known_hosts_line.hpp"

#include "colossalai/util/base64.hpp"

#include <fmt/core.h>

#include <cstdint>

namespace colossalai::ssh {

namespace {

std::uint32_t rotl(std::uint32_t x, int n) {
    return (x << n) | (x >> (32 - n));
}

} // namespace

// FIPS 180-4. Hashing host names for known_hosts only: no secret depends on its speed.
Sha1Digest sha1(std::string_view data) {
    std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    std::string message(data);
    std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
    message += static_cast<char>(0x80);
    while (message.size() % 64 != 56) {
        message += '\0';
    }
    for (int i = 7; i >= 0; --i) {
        message += static_cast<char>((bits >> (i * 8)) & 0xff);
    }
    for (std::size_t block = 0; block < message.size(); block += 64) {
        std::uint32_t w[80];
        for (int i = 0; i < 16; ++i) {
            auto byte = [&](int k) {
                return static_cast<std::uint32_t>(
                    static_cast<unsigned char>(message[block + 4 * i + k]));
            };
            w[i] = byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
        }
        for (int i = 16; i < 80; ++i) {
            w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        }
        std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; ++i) {
            std::uint32_t f, k;
            if (i < 20) {
                f = (b & c) | (~b & d);
                k = 0x5A827999;
            } else if (i < 40) {
                f = b ^ c ^ d;
                k = 0x6ED9EBA1;
            } else if (i < 60) {
                f = (b & c) | (b & d) | (c & d);
                k = 0x8F1BBCDC;
            } else {
                f = b ^ c ^ d;
                k = 0xCA62C1D6;
            }
            std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
            e = d;
            d = c;
            c = rotl(b, 30);
            b = a;
            a = t;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
    }
    Sha1Digest digest{};
    for (int i = 0; i < 20; ++i) {
        digest[i] = static_cast<unsigned char>(h[i / 4] >> (24 - 8 * (i % 4)));
    }
    return digest;
}

// RFC 2104.
Sha1Digest hmac_sha1(std::string_view key, std::string_view message) {
    std::string block(64, '\0');
    if (key.size() > 64) {
        Sha1Digest hashed = sha1(key);
        std::copy(hashed.begin(), hashed.end(), block.begin());
    } else {
        std::copy(key.begin(), key.end(), block.begin());
    }
    std::string inner = block, outer = block;
    for (std::size_t i = 0; i < 64; ++i) {
        inner[i] = static_cast<char>(inner[i] ^ 0x36);
        outer[i] = static_cast<char>(outer[i] ^ 0x5c);
    }
    Sha1Digest inner_digest = sha1(inner + std::string(message));
    return sha1(outer + std::string(inner_digest.begin(), inner_digest.end()));
}

std::string hashed_host_name(std::string_view name, std::string_view salt) {
    Sha1Digest mac = hmac_sha1(salt, name);
    return fmt::format("|1|{}|{}", util::base64_encode(salt),
                       util::base64_encode(std::string_view(
                           reinterpret_cast<const char*>(mac.data()), mac.size())));
}

std::string known_hosts_line(std::string_view name, std::string_view key_type,
                             std::string_view key_base64, std::string_view salt) {
    std::string shown = salt.empty() ? std::string(name) : hashed_host_name(name, salt);
    return fmt::format("{} {} {}\n", shown, key_type, key_base64);
}

} // namespace colossalai::ssh
