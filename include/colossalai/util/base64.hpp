#pragma once

#include <optional>
#include <string>
#include <string_view>

// Standard base64 (RFC 4648, `+/`, `=` padding), as OpenSSH's key and known_hosts files use it.
namespace colossalai::util {

std::string base64_encode(std::string_view bytes);

// Whitespace is skipped (PEM bodies are wrapped); nullopt on any other character outside the
// alphabet or a bad length.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace colossalai::util
