#pragma once

#include <array>
#include <string>
#include <string_view>

// known_hosts lines as OpenSSH writes them, plain or hashed (HashKnownHosts). Pure.
namespace colossalai::ssh {

using Sha1Digest = std::array<unsigned char, 20>;

Sha1Digest sha1(std::string_view data);
Sha1Digest hmac_sha1(std::string_view key, std::string_view message);

// OpenSSH's hashed host name: `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`; `salt` is the
// 20 random bytes OpenSSH uses.
std::string hashed_host_name(std::string_view name, std::string_view salt);

// `NAME TYPE BASE64\n`, NAME hashed with `salt` when it is not empty. `name` is the
// known_hosts name (`host` or `[host]:port`, see known_hosts_name()).
std::string known_hosts_line(std::string_view name, std::string_view key_type,
                             std::string_view key_base64, std::string_view salt);

} // namespace colossalai::ssh
