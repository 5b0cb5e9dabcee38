#pragma once

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

// Tells whether a host is this machine: `localhost`, a loopback address, `0.0.0.0`, this
// machine's host name (as gethostname() gives it, its short form before the first '.', or its
// canonical name), or a name or address that resolves to a loopback address or to an address of
// a local network interface. Reads the host name and the interfaces once, at construction;
// each call may resolve a name (getaddrinfo: /etc/hosts, then DNS). An unresolvable name is not
// local.
class LocalHostDetector {
public:
    LocalHostDetector();
    bool operator()(std::string_view address) const;

private:
    std::vector<std::string> m_names;      // this machine's names, lower case
    std::vector<std::string> m_interfaces; // numeric addresses of the local interfaces
};

} // namespace colossalai::run
