#pragma once

// Private to the ssh module: the server's host key checked against the known_hosts files as
// OpenSSH's StrictHostKeyChecking says, new keys learned into the user's known_hosts.

#include "colossalai/ssh/client_config.hpp"

#include <libssh/libssh.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace colossalai::ssh {

struct HostKeyCheck {
    HostKeyPolicy policy = HostKeyPolicy::yes;
    bool hash_known_hosts = false; // learned names are hashed (HashKnownHosts yes)
    // Receives a warning line (without "colossalai: " and newline); called on the worker.
    std::function<void(const std::string&)> warn;
};

// Whether the policy learns the key of an unknown host (accept-new, no) rather than refusing it.
bool learns_new_keys(HostKeyPolicy policy);

// What the check does with the state libssh found the host in, once revoked keys and
// certificate authorities were dealt with and an unknown host was learned where the policy
// learns.
enum class HostKeyVerdict {
    accept,            // known
    warn_changed,      // changed or of another type, and the policy is `no`: connect, loudly
    refuse_other_type, // known_hosts holds a key of another type only
    refuse_changed,    // known_hosts holds another key of this type
    refuse_unknown,    // not in known_hosts (nor learned)
    cannot_check,      // libssh could not tell
};
HostKeyVerdict host_key_verdict(ssh_known_hosts_e state, HostKeyPolicy policy);

// libssh 0.10 reads a known_hosts file with fgets() into 8,192 bytes; at a longer line it stops
// reading that file and still answers, as if the file ended there (OpenSSH reads every line).
// The number (from 1) of the first line of `text` that libssh does not read, if any: a line of
// 8,191 bytes or more.
std::optional<int> first_line_libssh_skips(std::string_view text);

// How a known_hosts key for the host compares with the key the server sent.
enum class KeyMatch { same_key, same_type, other_type };

// The state libssh would have found the host in, had it read the lines it skipped, when it found
// the host unknown: `skipped` are the host's unmarked keys on those lines.
ssh_known_hosts_e state_from_skipped_lines(std::span<const KeyMatch> skipped);

// Checks the connected session's host key for `host` port `port` (as libssh resolved them):
// - known: fine;
// - unknown: refused (yes, ask: with the ssh-keyscan line to trust it), or learned into the
//   user known_hosts file (accept-new, no) with a warning; learning takes an exclusive lock
//   on that file and checks again under it, so many hosts (and launchers) learning at once
//   append whole lines, each host once;
// - changed or of another type: refused loudly, except with `no`: a loud warning naming the
//   host and both fingerprints, every time, and the connection goes on.
// Throws colossalai::Error with one line.
void verify_host_key(ssh_session session, const std::string& host, unsigned port,
                     const HostKeyCheck& check);

} // namespace colossalai::ssh
