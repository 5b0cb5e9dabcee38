#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// --network-interface IFACE[,IFACE...], parsed once: NCCL's syntax (a leading `^` excludes the
// names, a leading `=` asks NCCL for exact names instead of prefixes).
struct NetworkInterfaces {
    std::string nccl;                  // NCCL_SOCKET_IFNAME: the text as given
    std::optional<std::string> gloo;   // GLOO_SOCKET_IFNAME: the names without `=`; none for `^`
    std::vector<std::string> required; // names every node must have (none for `^`)

    bool operator==(const NetworkInterfaces&) const = default;
};

// Throws a usage error naming the bad part: nothing after `^`/`=`, an empty item, a name longer
// than 15 bytes (IFNAMSIZ) or with characters other than letters, digits and `_.:@-`.
NetworkInterfaces parse_network_interfaces(std::string_view text);

} // namespace colossalai::run
