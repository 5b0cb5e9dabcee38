#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What every node checks before any job starts (part of the two-step start: a node is ready
// only once its checks pass), and what a failed check says. Pure: the checks themselves run in
// the node wrapper (ssh/remote_command.hpp) and in the local transport (exec/local_preflight.hpp).
namespace colossalai::run {

// The launcher's exit status when a node failed its preflight and nothing was started: distinct
// from a usage error (2) and from a host that cannot be reached (255).
inline constexpr int preflight_exit_status = 254;

// What a node checks besides its working directory and its command (argv[0]), which the
// NodeCommand holds.
struct Preflight {
    std::string master_address;          // must resolve on the node (numeric addresses do)
    std::vector<std::string> interfaces; // must exist on the node (--network-interface)
};

// The checks, in the order a node runs them.
enum class PreflightCheck { working_directory, command, master_address, network_interface };

// A failed check and what it was about (the directory, the command, the address, the name).
struct PreflightFailure {
    PreflightCheck check;
    std::string subject;
};

// The one line a node's failure reads as (after the host's name), with what to do about it.
std::string describe(const PreflightFailure& failure);

// --network-interface IFACE[,IFACE...], parsed once: NCCL's syntax (a leading `^` excludes the
// names, a leading `=` asks NCCL for exact names instead of prefixes).
struct NetworkInterfaces {
    std::string nccl;                  // NCCL_SOCKET_IFNAME: the text as given
    std::optional<std::string> gloo;   // GLOO_SOCKET_IFNAME: the names without `=`; none for `^`
    std::vector<std::string> required; // names every node must have (none for `^`)
};

// Throws a usage error naming the bad part: nothing after `^`/`=`, an empty item, a name longer
// than 15 bytes (IFNAMSIZ) or with characters other than letters, digits and `_.:@-`.
NetworkInterfaces parse_network_interfaces(std::string_view text);

} // namespace colossalai::run
