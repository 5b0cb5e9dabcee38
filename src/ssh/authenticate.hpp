#pragma once

// Private to the ssh module: logging in on a connected session, the way OpenSSH users expect.

#include "colossalai/ssh/client_config.hpp"

#include <libssh/libssh.h>

#include <string>

namespace colossalai::ssh {

// Logs `user` in on `session` (connected to `host`, its host key verified), trying in turn: no
// authentication at all; the certificates of each identity (IDENTITY-cert.pub, then every
// CertificateFile of `config`) carried on its private key; then ssh-agent and the identity files
// (IdentityFile of `config`, then id_ed25519, id_ecdsa, id_rsa), %-tokens expanded for `host`
// and `user`. Blocking; runs on a worker thread. Throws colossalai::Error with one line naming
// `user@host` and why; an identity that needs a passphrase (libssh, with no one to ask, skips it)
// is named with how to add it to ssh-agent.
void authenticate(ssh_session session, const std::string& host, const std::string& user,
                  const ClientConfig& config);

} // namespace colossalai::ssh
