#include "authenticate.hpp"

#include "libssh.hpp"
#include "session.hpp"

#include "colossalai/ssh/private_key.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace colossalai::ssh {

namespace {

// The identity files libssh tries: IdentityFile from the ssh config, then its defaults.
std::vector<std::string> identity_files(const ClientConfig& config, const PathTokens& tokens) {
    std::vector<std::string> files;
    for (const std::string& file : config.identity_files) {
        files.push_back(expand_path(file, tokens));
    }
    for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) {
        files.push_back(tokens.home + "/.ssh/" + name);
    }
    return files;
}

// The first identity file that needs a passphrase, which libssh, with no one to ask, skips.
std::optional<std::string> encrypted_identity(const std::vector<std::string>& files) {
    for (const std::string& file : files) {
        std::optional<std::string> text = util::read_file(file, 1024 * 1024);
        if (text && is_encrypted_private_key(*text)) {
            return file;
        }
    }
    return std::nullopt;
}

KeyPtr private_key(const std::string& file) {
    ssh_key key = nullptr;
    if (lib::ssh_pki_import_privkey_file(file.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
        return nullptr;
    }
    return KeyPtr(key);
}

// OpenSSH offers an identity with its certificates first: IDENTITY-cert.pub beside it and every
// CertificateFile. libssh 0.10 offers no certificate of an identity file itself, but can carry
// one on a private key (ssh_pki_copy_cert_to_privkey). A certificate of another key is
// refused by the server; nothing here pairs them. True when one was accepted.
bool authenticate_with_certificates(ssh_session session, const std::vector<std::string>& identities,
                                    const std::vector<std::string>& certificate_files) {
    std::error_code ignored;
    for (const std::string& identity : identities) {
        std::vector<std::string> certificates = {identity + "-cert.pub"};
        certificates.insert(certificates.end(), certificate_files.begin(), certificate_files.end());
        for (const std::string& file : certificates) {
            ssh_key raw = nullptr;
            if (!std::filesystem::exists(file, ignored) ||
                lib::ssh_pki_import_cert_file(file.c_str(), &raw) != SSH_OK) {
                continue;
            }
            KeyPtr certificate(raw);
            KeyPtr key = private_key(identity); // a key carries one certificate: a fresh one
            if (!key || lib::ssh_pki_copy_cert_to_privkey(certificate.get(), key.get()) != SSH_OK) {
                continue;
            }
            if (lib::ssh_userauth_publickey(session, nullptr, key.get()) == SSH_AUTH_SUCCESS) {
                return true;
            }
        }
    }
    return false;
}

} // namespace

void authenticate(ssh_session session, const std::string& host, const std::string& user,
                  const ClientConfig& config) {
    if (lib::ssh_userauth_none(session, nullptr) == SSH_AUTH_SUCCESS) {
        return;
    }
    LocalUser local = local_user();
    PathTokens tokens{local.home, local.name, host, user};
    std::vector<std::string> identities = identity_files(config, tokens);
    std::vector<std::string> certificates;
    for (const std::string& file : config.certificate_files) {
        certificates.push_back(expand_path(file, tokens));
    }
    if (authenticate_with_certificates(session, identities, certificates)) {
        return;
    }
    int rc = lib::ssh_userauth_publickey_auto(session, nullptr, nullptr);
    if (rc == SSH_AUTH_SUCCESS) {
        return;
    }
    std::string reason = rc == SSH_AUTH_DENIED ? "no key was accepted" : last_error(session);
    if (std::optional<std::string> file = encrypted_identity(identities)) {
        reason += fmt::format("; the key {} needs a passphrase, which the launcher cannot ask "
                              "for: add it to ssh-agent (eval $(ssh-agent); ssh-add {}) and run "
                              "again",
                              *file, util::shell_quote(*file));
    }
    throw fatal_error("authentication failed for {}@{} (public key, from ssh-agent and the "
                      "identity files): {}",
                      user, host, reason);
}

} // namespace colossalai::ssh
