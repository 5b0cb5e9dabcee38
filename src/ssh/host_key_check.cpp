#include "host_key_check.hpp"

#include "libssh.hpp"
#include "session.hpp"

#include "colossalai/ssh/host_key_advice.hpp"
#include "colossalai/ssh/known_hosts_line.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/fd.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace colossalai::ssh {

namespace {

// OpenSSH's `SHA256:...` fingerprint of a key.
std::string fingerprint(ssh_key key) {
    unsigned char* hash = nullptr;
    size_t length = 0;
    if (lib::ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK) {
        return "(unknown fingerprint)";
    }
    char* text = lib::ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
    lib::ssh_clean_pubkey_hash(&hash);
    std::string result = text != nullptr ? text : "(unknown fingerprint)";
    lib::ssh_string_free_char(text);
    return result;
}

// "ED25519", "RSA", ... as OpenSSH names key types in its messages.
std::string type_label(ssh_key key) {
    const char* name = lib::ssh_key_type_to_char(lib::ssh_key_type(key));
    std::string label = name != nullptr ? name : "unknown";
    if (label.rfind("ssh-", 0) == 0) {
        label.erase(0, 4);
    }
    for (char& c : label) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return label;
}

KeyPtr server_key(ssh_session session) {
    ssh_key key = nullptr;
    check(lib::ssh_get_server_publickey(session, &key), session, "cannot read the host key");
    return KeyPtr(key);
}

std::string option(ssh_session session, ssh_options_e which) {
    char* value = nullptr;
    std::string result;
    if (lib::ssh_options_get(session, which, &value) == SSH_OK && value != nullptr) {
        result = value;
        lib::ssh_string_free_char(value);
    }
    return result;
}

// A known_hosts line whose host patterns match the host: its marker ("" or `@revoked`,
// `@cert-authority`; libssh skips marked lines altogether), its key and where it is.
struct KnownKey {
    std::string marker;
    KeyPtr key;
    std::string where;      // FILE:LINE
    bool skipped_by_libssh; // at or after first_line_libssh_skips() of its file
};

// Every line of the user and global known_hosts files (as libssh resolved them) for `name`.
std::vector<KnownKey> known_keys(ssh_session session, const std::string& name) {
    std::vector<KnownKey> result;
    for (ssh_options_e which : {SSH_OPTIONS_KNOWNHOSTS, SSH_OPTIONS_GLOBAL_KNOWNHOSTS}) {
        std::string path = option(session, which);
        std::optional<std::string> text = path.empty() ? std::nullopt : util::read_file(path);
        if (!text) {
            continue;
        }
        std::optional<int> skipped_from = first_line_libssh_skips(*text);
        int number = 0;
        for (std::string_view line : util::split_lines(*text)) {
            ++number;
            line = util::trim(line);
            std::string marker;
            if (!line.empty() && line[0] == '@') {
                std::size_t space = line.find_first_of(" \t");
                if (space == std::string_view::npos) {
                    continue;
                }
                marker = line.substr(0, space);
                line = util::trim(line.substr(space));
            }
            std::string rest(line);
            ssh_knownhosts_entry* entry = nullptr;
            if (rest.empty() || rest[0] == '#' ||
                lib::ssh_known_hosts_parse_line(name.c_str(), rest.c_str(), &entry) != SSH_OK) {
                continue;
            }
            if (entry->publickey != nullptr) {
                result.push_back({marker, KeyPtr(entry->publickey),
                                  fmt::format("{}:{}", path, number),
                                  skipped_from && number >= *skipped_from});
                entry->publickey = nullptr; // now owned by the result
            }
            lib::ssh_knownhosts_entry_free(entry);
        }
    }
    return result;
}

// Where the known_hosts files hold another key for the host: "SHA256:... (FILE:LINE)", those
// of the server key's type first (libssh hands out no entry for a changed key).
std::string offending_keys(const std::vector<KnownKey>& known, ssh_key server) {
    std::vector<std::string> same_type, other_type;
    for (const KnownKey& line : known) {
        if (line.marker.empty()) {
            std::string where = fmt::format("{} ({})", fingerprint(line.key.get()), line.where);
            (lib::ssh_key_type(line.key.get()) == lib::ssh_key_type(server) ? same_type
                                                                            : other_type)
                .push_back(where);
        }
    }
    same_type.insert(same_type.end(), other_type.begin(), other_type.end());
    return same_type.empty() ? "another key" : fmt::format("{}", fmt::join(same_type, ", "));
}

bool is_unknown_host(ssh_known_hosts_e state) {
    return state == SSH_KNOWN_HOSTS_UNKNOWN || state == SSH_KNOWN_HOSTS_NOT_FOUND;
}

// libssh's answer for the session's host, completed from the known_hosts lines that libssh
// skipped (see first_line_libssh_skips()): there, a host it finds unknown may be known.
ssh_known_hosts_e host_state(ssh_session session, const std::vector<KnownKey>& known) {
    ssh_known_hosts_e state = lib::ssh_session_is_known_server(session);
    if (!is_unknown_host(state)) {
        return state;
    }
    std::vector<KeyMatch> skipped;
    KeyPtr server;
    for (const KnownKey& line : known) {
        if (!line.marker.empty() || !line.skipped_by_libssh) {
            continue;
        }
        if (!server) {
            server = server_key(session);
        }
        skipped.push_back(lib::ssh_key_cmp(line.key.get(), server.get(), SSH_KEY_CMP_PUBLIC) == 0
                              ? KeyMatch::same_key
                          : lib::ssh_key_type(line.key.get()) == lib::ssh_key_type(server.get())
                              ? KeyMatch::same_type
                              : KeyMatch::other_type);
    }
    return skipped.empty() ? state : state_from_skipped_lines(skipped);
}

// What learn() did: wrote the key into `file`, or found the host known (or changed) by now.
struct Learned {
    std::optional<std::string> file;              // the known_hosts file the key was appended to
    ssh_known_hosts_e state = SSH_KNOWN_HOSTS_OK; // without `file`: the check under the lock
};

// Appends the host's key to the user known_hosts file, under an exclusive lock, unless the
// file (read again under the lock) knows the host by now: then returns the check's result.
Learned learn(ssh_session session, const std::string& name, ssh_key key,
              const HostKeyCheck& host_keys) {
    std::string file_name = option(session, SSH_OPTIONS_KNOWNHOSTS);
    if (file_name.empty()) {
        throw fatal_error("cannot learn the host key: no user known_hosts file");
    }
    std::error_code ignored;
    std::filesystem::path parent = std::filesystem::path(file_name).parent_path();
    if (!parent.empty() && !std::filesystem::exists(parent, ignored)) {
        std::filesystem::create_directories(parent, ignored);
        std::filesystem::permissions(parent, std::filesystem::perms::owner_all, ignored);
    }
    util::Fd file(::open(file_name.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
    if (!file || ::flock(file.get(), LOCK_EX) != 0) {
        throw fatal_error("cannot learn the host key into {}: {}", file_name, std::strerror(errno));
    }
    ssh_known_hosts_e now = host_state(session, known_keys(session, name));
    if (now != SSH_KNOWN_HOSTS_UNKNOWN && now != SSH_KNOWN_HOSTS_NOT_FOUND) {
        return {std::nullopt, now}; // learned meanwhile (or changed meanwhile: the caller decides)
    }
    char* base64 = nullptr;
    check(lib::ssh_pki_export_pubkey_base64(key, &base64), session, "cannot encode the host key");
    std::string key_text = base64;
    lib::ssh_string_free_char(base64);
    std::string salt;
    if (host_keys.hash_known_hosts) {
        salt.resize(20);
        if (::getrandom(salt.data(), salt.size(), 0) != static_cast<ssize_t>(salt.size())) {
            throw fatal_error("cannot hash the host name: no random bytes");
        }
    }
    std::string line =
        known_hosts_line(name, lib::ssh_key_type_to_char(lib::ssh_key_type(key)), key_text, salt);
    // A file whose last line has no newline would glue our line to it.
    off_t size = ::lseek(file.get(), 0, SEEK_END);
    char last = '\n';
    if (size > 0 && ::pread(file.get(), &last, 1, size - 1) == 1 && last != '\n') {
        line.insert(0, "\n");
    }
    // close() is where a network file system reports a write that failed late.
    if (::write(file.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size()) ||
        !file.close()) {
        throw fatal_error("cannot learn the host key into {}: {}", file_name, std::strerror(errno));
    }
    return {file_name, SSH_KNOWN_HOSTS_OK};
}

// A key marked @revoked for the host is refused whatever the policy (as OpenSSH does).
void refuse_revoked_key(ssh_session session, const std::string& host, unsigned port,
                        const std::vector<KnownKey>& known) {
    KeyPtr key = server_key(session);
    for (const KnownKey& line : known) {
        if (line.marker == "@revoked" &&
            lib::ssh_key_cmp(line.key.get(), key.get(), SSH_KEY_CMP_PUBLIC) == 0) {
            throw fatal_error("the host key of {} port {} is marked @revoked in {} — "
                              "refusing to connect",
                              host, port, line.where);
        }
    }
}

// An unknown host that known_hosts trusts through a @cert-authority line: refused unless the
// policy connects anyway (no), since the certificate cannot be checked here.
void refuse_unchecked_certificate(const std::string& host, unsigned port,
                                  const std::vector<KnownKey>& known, HostKeyPolicy policy) {
    auto authority = std::find_if(known.begin(), known.end(), [](const KnownKey& line) {
        return line.marker == "@cert-authority";
    });
    if (authority != known.end() && policy != HostKeyPolicy::no) {
        // libssh 0.10 offers no host certificate algorithm, so the server sends its plain key,
        // and has no public function to check a certificate's signature.
        throw fatal_error("unknown host {} port {}: known_hosts trusts it through "
                          "@cert-authority ({}), but host certificates cannot be checked with "
                          "libssh 0.10; use --ssh-client openssh, or after checking its key, "
                          "trust it with: {}",
                          host, port, authority->where, keyscan_command(host, port));
    }
}

// Carries out `verdict` for the session's key: returns (maybe after a warning) or throws.
void carry_out(HostKeyVerdict verdict, ssh_session session, const std::string& host, unsigned port,
               const std::vector<KnownKey>& known, const HostKeyCheck& check) {
    switch (verdict) {
    case HostKeyVerdict::accept:
        return;
    case HostKeyVerdict::warn_changed: {
        KeyPtr key = server_key(session);
        check.warn(fmt::format(
            "REMOTE HOST IDENTIFICATION HAS CHANGED for {} port {}! The {} key it "
            "sent has fingerprint {}; known_hosts holds {}. Someone could be eavesdropping "
            "(man-in-the-middle attack), or the host key has just been changed. Connecting "
            "anyway (StrictHostKeyChecking no); if the change is expected, remove the old "
            "key with: {}",
            host, port, type_label(key.get()), fingerprint(key.get()),
            offending_keys(known, key.get()), forget_key_command(host, port)));
        return;
    }
    case HostKeyVerdict::refuse_other_type:
        throw fatal_error("the host key of {} port {} is of another type than the one in "
                          "known_hosts — refusing to connect (possible attack); check it "
                          "and fix known_hosts",
                          host, port);
    case HostKeyVerdict::refuse_changed:
        throw fatal_error("REMOTE HOST KEY HAS CHANGED for {} port {} — refusing to "
                          "connect (someone may be intercepting the connection); if the change "
                          "is expected, remove the old key with: {}",
                          host, port, forget_key_command(host, port));
    case HostKeyVerdict::refuse_unknown:
        throw fatal_error("unknown host {} port {} (not in known_hosts{}); after checking its "
                          "key, trust it with: {}",
                          host, port,
                          check.policy == HostKeyPolicy::ask
                              ? "; StrictHostKeyChecking ask is taken as yes: a launcher "
                                "cannot ask"
                              : "",
                          keyscan_command(host, port));
    case HostKeyVerdict::cannot_check:
        break;
    }
    throw fatal_error("cannot check the host key: {}", last_error(session));
}

} // namespace

bool learns_new_keys(HostKeyPolicy policy) {
    return policy == HostKeyPolicy::accept_new || policy == HostKeyPolicy::no;
}

HostKeyVerdict host_key_verdict(ssh_known_hosts_e state, HostKeyPolicy policy) {
    switch (state) {
    case SSH_KNOWN_HOSTS_OK:
        return HostKeyVerdict::accept;
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
        if (policy == HostKeyPolicy::no) {
            return HostKeyVerdict::warn_changed;
        }
        return state == SSH_KNOWN_HOSTS_OTHER ? HostKeyVerdict::refuse_other_type
                                              : HostKeyVerdict::refuse_changed;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
        return HostKeyVerdict::refuse_unknown;
    case SSH_KNOWN_HOSTS_ERROR:
    default:
        return HostKeyVerdict::cannot_check;
    }
}

std::optional<int> first_line_libssh_skips(std::string_view text) {
    // fgets() into 8,192 bytes holds 8,191 of them: a line and its newline must fit.
    constexpr std::size_t readable = 8190;
    int number = 1;
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        if (std::min(end, text.size()) > readable) {
            return number;
        }
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
        ++number;
    }
    return std::nullopt;
}

ssh_known_hosts_e state_from_skipped_lines(std::span<const KeyMatch> skipped) {
    // As libssh decides among the lines it reads: the same key anywhere wins, then a key of the
    // same type (changed), then keys of other types only.
    for (KeyMatch wanted : {KeyMatch::same_key, KeyMatch::same_type, KeyMatch::other_type}) {
        if (std::find(skipped.begin(), skipped.end(), wanted) != skipped.end()) {
            return wanted == KeyMatch::same_key    ? SSH_KNOWN_HOSTS_OK
                   : wanted == KeyMatch::same_type ? SSH_KNOWN_HOSTS_CHANGED
                                                   : SSH_KNOWN_HOSTS_OTHER;
        }
    }
    return SSH_KNOWN_HOSTS_UNKNOWN;
}

void verify_host_key(ssh_session session, const std::string& host, unsigned port,
                     const HostKeyCheck& check) {
    const std::string name = known_hosts_name(host, port);
    std::vector<KnownKey> known = known_keys(session, name);
    refuse_revoked_key(session, host, port, known);
    ssh_known_hosts_e state = host_state(session, known);
    if (is_unknown_host(state)) {
        refuse_unchecked_certificate(host, port, known, check.policy);
        if (learns_new_keys(check.policy)) {
            KeyPtr key = server_key(session);
            Learned learned = learn(session, name, key.get(), check);
            if (learned.file) {
                check.warn(
                    fmt::format("permanently added '{}' ({}) to the list of known hosts ({})", name,
                                type_label(key.get()), *learned.file));
                return;
            }
            state = learned.state;
        }
    }
    carry_out(host_key_verdict(state, check.policy), session, host, port, known, check);
}

} // namespace colossalai::ssh
