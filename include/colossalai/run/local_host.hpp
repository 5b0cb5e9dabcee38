#pragma once

#include "colossalai/run/resolver.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

enum class AddressKind {
    name,        // not a numeric address: a host name (or garbage)
    loopback,    // 127.0.0.0/8, ::1, ::ffff:127.x.y.z
    unspecified, // 0.0.0.0, ::
    other,       // any other numeric IPv4 or IPv6 address
};

// Classifies `text` as a numeric address (no brackets, no zone id). Pure.
AddressKind classify_address(std::string_view text);

// True for `localhost` (any case) and loopback addresses: a master address that other
// machines cannot reach. Pure.
bool is_loopback(std::string_view address);

// What this machine knows of itself without asking DNS.
struct MachineIdentity {
    std::vector<std::string> names;      // gethostname() and its short form, lower case
    std::vector<std::string> interfaces; // numeric addresses of the local interfaces
};

// Decides whether `address` (no user part, no brackets) is this machine from the text alone:
// true for `localhost`, a loopback or unspecified address, one of `identity`'s names or
// interface addresses; false for any other numeric address (also "127.1" or "fe80::1%lo",
// converted without any lookup); nullopt for a name that only a lookup can place. Pure but for
// getaddrinfo(AI_NUMERICHOST), which never sends a query.
std::optional<bool> local_without_lookup(std::string_view address, const MachineIdentity& identity);

// True when one of `resolved` (numeric addresses a name resolved to) is a loopback or
// unspecified address or an address of `identity`'s interfaces. Pure.
bool resolves_to_local(const std::vector<std::string>& resolved, const MachineIdentity& identity);

// Whether `address` is an IPv6 link-local address (fe80::/10), with or without a `%zone`: it
// means something only together with an interface of one machine. Pure.
bool is_ipv6_link_local(std::string_view address);

// The local address the route to `address` (numeric) leaves from: a UDP socket connected to
// it (no packet is sent) tells; a link-local one with its `%interface`. nullopt when there is
// no route or the address is not numeric.
std::optional<std::string> route_source(const std::string& address);

// Tells which hosts are this machine and how this machine is reached from them. Reads the
// host name and the interfaces at construction, without DNS.
class LocalHostDetector {
public:
    LocalHostDetector();
    explicit LocalHostDetector(MachineIdentity identity) : m_identity(std::move(identity)) {}

    // Which of `addresses` (no user part, no brackets) are this machine, in order: decided by
    // local_without_lookup where the text says; the other names are looked up concurrently
    // within `bound` (this machine's canonical name resolves to one of its addresses); a name
    // that does not resolve, or does not answer in time, is another machine. Remembers what
    // resolved.
    std::vector<bool> operator()(const std::vector<std::string>& addresses,
                                 std::chrono::milliseconds bound = lookup_bound);

    // The local, non-loopback address that the route to `address` (numeric, or a name the last
    // call resolved) leaves from; nullopt when unknown. Sends nothing.
    std::optional<std::string> source_towards(const std::string& address) const;

private:
    MachineIdentity m_identity;
    std::map<std::string, std::vector<std::string>> m_resolved; // name -> its addresses
};

} // namespace colossalai::run
