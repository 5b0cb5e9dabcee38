#pragma once

#include <optional>
#include <string_view>

// StrictHostKeyChecking: what to do with a remote node whose host key is unknown or changed.
// It lives below `run` and `ssh` because both hold it: `run::Options` and the Plan carry the
// user's `--strict-host-key-checking`, ssh's config reader the node's `StrictHostKeyChecking`,
// and the transport applies whichever wins.
namespace colossalai::job {

// `ask` is treated as `yes` (a launcher has no one to ask).
enum class HostKeyPolicy { yes, accept_new, no, ask };

// OpenSSH's spellings, case-insensitive: `yes`/`true`, `accept-new`, `no`/`off`/`false`, `ask`;
// anything else is nullopt.
std::optional<HostKeyPolicy> parse_host_key_policy(std::string_view text);

// As OpenSSH spells it: "yes", "accept-new", "no", "ask".
std::string_view host_key_policy_name(HostKeyPolicy policy);

} // namespace colossalai::job
