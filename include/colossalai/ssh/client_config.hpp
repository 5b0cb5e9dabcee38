#pragma once

#include "colossalai/job/host_key_policy.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The OpenSSH client settings that libssh 0.10 does not apply itself (its config parser skips
// or half-reads them), read from the same files with OpenSSH's rules: the first value given
// for the host wins, `Host` and `Match` blocks, `Include`. What libssh does apply (HostName,
// User, Port, IdentityFile, ProxyJump, UserKnownHostsFile, ...) stays with libssh.
namespace colossalai::ssh {

// The policy is typed in `job`, below `run`, whose options hold the user's choice too.
using job::host_key_policy_name;
using job::HostKeyPolicy;
using job::parse_host_key_policy;

struct ClientConfig {
    std::optional<std::string> host_name; // HostName as written (%h unexpanded)
    std::optional<HostKeyPolicy> strict_host_key_checking;
    std::optional<bool> hash_known_hosts;
    std::optional<int> server_alive_interval;   // seconds; 0: no keepalive
    std::optional<int> server_alive_count_max;  // unanswered keepalives before giving up
    std::vector<std::string> identity_files;    // every one given, in order, unexpanded
    std::vector<std::string> certificate_files; // every one given, in order, unexpanded
};

// The host a configuration is read for: `original` as given to the launcher (matched by
// `Host` and `Match originalhost`), `host` after HostName (matched by `Match host`).
struct ConfigTarget {
    std::string original;
    std::string host;
};

// Returns the texts of the files that `Include ARG` names (ARG as written), in order.
using IncludeReader = std::function<std::vector<std::string>(const std::string& argument)>;

// Applies one configuration file's `text` for `target` to `config`: keywords the config does
// not hold yet are set, IdentityFile and CertificateFile appended. Pure but for `include`.
// `Match` understands `all`, `host`, `originalhost`, `final` (true: there is one pass) and
// `canonical` (false), each negatable with `!`; a block with any other criterion does not
// apply. Throws colossalai::Error "SOURCE line N: ..." for a bad value of a keyword read here.
void apply_client_config(std::string_view text, const std::string& source,
                         const ConfigTarget& target, const IncludeReader& include,
                         ClientConfig& config);

// OpenSSH's pattern match: `*` and `?` wildcards, case-insensitive.
bool match_pattern(std::string_view text, std::string_view pattern);

// What the tokens of IdentityFile and CertificateFile stand for.
struct PathTokens {
    std::string home;        // ~ and %d
    std::string local_user;  // %u
    std::string host;        // %h (after HostName)
    std::string remote_user; // %r
};

// A path of the ssh config with `~/`, %d, %u, %h, %r and %% replaced, as OpenSSH does. Pure.
std::string expand_path(std::string_view path, const PathTokens& tokens);

// The local user as OpenSSH and libssh see it: name and home from the passwd entry (home
// else $HOME). Thread-safe.
struct LocalUser {
    std::string name;
    std::string home;
};
LocalUser local_user();

// The host that `original` (an alias or a name, no user part) leads to, as OpenSSH computes
// it: the HostName of `config` with %h replaced by `original` and %% by %, else `original`.
// Pure.
std::string host_name_of(const std::string& original, const ClientConfig& config);

// ~/.ssh/config (home from the passwd entry, as libssh and OpenSSH take it) then
// /etc/ssh/ssh_config, with Include relative to ~/.ssh and /etc/ssh. Missing files are empty.
ClientConfig read_client_config(const ConfigTarget& target);

// host_name_of(`original`) with the configuration read_client_config gives for it, for many
// hosts: the files are read and split once, at the first lookup (a config with an alias per
// host would otherwise be read once per host; a run without remote nodes reads none). Copies
// share the files, and may be used on several threads. A configuration with a bad
// value for the host gives `original` unchanged (connecting to it reports the error).
class ConfiguredHostNames {
public:
    ConfiguredHostNames();
    std::string operator()(const std::string& original) const;

private:
    struct Files;
    std::shared_ptr<Files> m_files;
};

} // namespace colossalai::ssh
