#include "colossalai/job/host_key_policy.hpp"

#include "colossalai/util/strings.hpp"

#include <string>

namespace colossalai::job {

std::optional<HostKeyPolicy> parse_host_key_policy(std::string_view text) {
    std::string word = util::ascii_lower(text);
    if (word == "yes" || word == "true") {
        return HostKeyPolicy::yes;
    }
    if (word == "accept-new") {
        return HostKeyPolicy::accept_new;
    }
    if (word == "no" || word == "off" || word == "false") {
        return HostKeyPolicy::no;
    }
    if (word == "ask") {
        return HostKeyPolicy::ask;
    }
    return std::nullopt;
}

std::string_view host_key_policy_name(HostKeyPolicy policy) {
    switch (policy) {
    case HostKeyPolicy::yes:
        return "yes";
    case HostKeyPolicy::accept_new:
        return "accept-new";
    case HostKeyPolicy::no:
        return "no";
    case HostKeyPolicy::ask:
        return "ask";
    }
    return "yes";
}

} // namespace colossalai::job
