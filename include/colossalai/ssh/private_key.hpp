#pragma once

#include <string_view>

namespace colossalai::ssh {

// Whether a private key file's text needs a passphrase: OpenSSH's own format with a cipher
// other than "none", PEM with `Proc-Type: 4,ENCRYPTED`, or PKCS#8 `ENCRYPTED PRIVATE KEY`.
// Pure; text that is no private key is not encrypted.
bool is_encrypted_private_key(std::string_view text);

} // namespace colossalai::ssh
