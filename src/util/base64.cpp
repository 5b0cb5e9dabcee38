#include "colossalai/util/base64.hpp"

#include <cctype>
#include <cstdint>

namespace colossalai::util {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+') {
        return 62;
    }
    if (c == '/') {
        return 63;
    }
    return -1;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
    std::string result;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size()) {
            n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        }
        if (i + 2 < bytes.size()) {
            n |= static_cast<unsigned char>(bytes[i + 2]);
        }
        result += alphabet[(n >> 18) & 63];
        result += alphabet[(n >> 12) & 63];
        result += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
        result += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
    }
    return result;
}

std::optional<std::string> base64_decode(std::string_view text) {
    std::string result;
    std::uint32_t bits = 0;
    int count = 0, padding = 0;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            continue;
        }
        if (c == '=') {
            ++padding;
            continue;
        }
        int value = value_of(c);
        if (value < 0 || padding > 0) {
            return std::nullopt;
        }
        bits = (bits << 6) | static_cast<std::uint32_t>(value);
        if (++count == 4) {
            result += static_cast<char>((bits >> 16) & 0xff);
            result += static_cast<char>((bits >> 8) & 0xff);
            result += static_cast<char>(bits & 0xff);
            bits = 0;
            count = 0;
        }
    }
    if (count == 1 || padding > 2) {
        return std::nullopt;
    }
    if (count == 2) {
        result += static_cast<char>((bits >> 4) & 0xff);
    } else if (count == 3) {
        result += static_cast<char>((bits >> 10) & 0xff);
        result += static_cast<char>((bits >> 2) & 0xff);
    }
    return result;
}

} // namespace colossalai::util
