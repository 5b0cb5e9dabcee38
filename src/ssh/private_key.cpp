#include "colossalai/ssh/private_key.hpp"

#include "colossalai/util/base64.hpp"

#include <optional>
#include <string>

namespace colossalai::ssh {

bool is_encrypted_private_key(std::string_view text) {
    constexpr std::string_view openssh_begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
    constexpr std::string_view openssh_end = "-----END OPENSSH PRIVATE KEY-----";
    if (text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos ||
        text.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos) {
        return true;
    }
    std::size_t begin = text.find(openssh_begin);
    std::size_t end = text.find(openssh_end);
    if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
        return false;
    }
    begin += openssh_begin.size();
    std::optional<std::string> body = util::base64_decode(text.substr(begin, end - begin));
    // "openssh-key-v1\0", then the cipher's name as an SSH string (uint32 length, big-endian).
    constexpr std::string_view magic{"openssh-key-v1\0", 15};
    if (!body || body->size() < magic.size() + 4 || body->compare(0, magic.size(), magic) != 0) {
        return false;
    }
    std::size_t length = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        length = length << 8 | static_cast<unsigned char>((*body)[magic.size() + i]);
    }
    std::size_t start = magic.size() + 4;
    if (start + length > body->size()) {
        return false;
    }
    return body->compare(start, length, "none") != 0;
}

} // namespace colossalai::ssh
