#include "colossalai/run/local_host.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace colossalai::run {

namespace {

std::string lower(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return result;
}

AddressKind classify_ipv4(const in_addr& address) {
    uint32_t host_order = ntohl(address.s_addr);
    if ((host_order >> 24) == 127) {
        return AddressKind::loopback;
    }
    return host_order == 0 ? AddressKind::unspecified : AddressKind::other;
}

AddressKind classify_ipv6(const in6_addr& address) {
    if (IN6_IS_ADDR_LOOPBACK(&address)) {
        return AddressKind::loopback;
    }
    if (IN6_IS_ADDR_UNSPECIFIED(&address)) {
        return AddressKind::unspecified;
    }
    if (IN6_IS_ADDR_V4MAPPED(&address)) {
        in_addr v4{};
        std::memcpy(&v4.s_addr, &address.s6_addr[12], 4);
        return classify_ipv4(v4);
    }
    return AddressKind::other;
}

// The numeric text of a socket address (without a scope id), or nullopt for other families.
std::optional<std::string> numeric(const sockaddr* address) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    } else if (address->sa_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
        inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    } else {
        return std::nullopt;
    }
    return std::string(text);
}

// Every address `host` resolves to (numeric text), empty when it does not resolve.
std::vector<std::string> resolve(const std::string& host, int flags = 0) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    addrinfo* results = nullptr;
    std::vector<std::string> addresses;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) {
        return addresses;
    }
    for (const addrinfo* entry = results; entry != nullptr; entry = entry->ai_next) {
        if (std::optional<std::string> text = numeric(entry->ai_addr)) {
            addresses.push_back(std::move(*text));
        }
    }
    freeaddrinfo(results);
    return addresses;
}

std::optional<std::string> canonical_name(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_CANONNAME;
    addrinfo* results = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) {
        return std::nullopt;
    }
    std::optional<std::string> name;
    if (results != nullptr && results->ai_canonname != nullptr) {
        name = results->ai_canonname;
    }
    freeaddrinfo(results);
    return name;
}

} // namespace

AddressKind classify_address(std::string_view text) {
    std::string copy(text); // inet_pton needs a terminated string
    in_addr v4{};
    if (inet_pton(AF_INET, copy.c_str(), &v4) == 1) {
        return classify_ipv4(v4);
    }
    in6_addr v6{};
    if (inet_pton(AF_INET6, copy.c_str(), &v6) == 1) {
        return classify_ipv6(v6);
    }
    return AddressKind::name;
}

bool is_loopback(std::string_view address) {
    return lower(address) == "localhost" || classify_address(address) == AddressKind::loopback;
}

LocalHostDetector::LocalHostDetector() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) == 0 && buffer[0] != '\0') {
        std::string name = lower(buffer);
        m_names.push_back(name);
        m_names.push_back(name.substr(0, name.find('.')));
        if (std::optional<std::string> canonical = canonical_name(buffer)) {
            m_names.push_back(lower(*canonical));
        }
    }
    ifaddrs* interfaces = nullptr;
    if (getifaddrs(&interfaces) == 0) {
        for (const ifaddrs* entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
            if (entry->ifa_addr == nullptr) {
                continue;
            }
            if (std::optional<std::string> text = numeric(entry->ifa_addr)) {
                m_interfaces.push_back(std::move(*text));
            }
        }
        freeifaddrs(interfaces);
    }
}

bool LocalHostDetector::operator()(std::string_view address) const {
    AddressKind kind = classify_address(address);
    if (kind == AddressKind::loopback || kind == AddressKind::unspecified) {
        return true;
    }
    std::string name = lower(address);
    if (name == "localhost" || std::find(m_names.begin(), m_names.end(), name) != m_names.end()) {
        return true;
    }
    // Numeric addresses (also "127.1" or "fe80::1%lo") are converted without any lookup.
    int flags = kind == AddressKind::name ? 0 : AI_NUMERICHOST;
    for (const std::string& resolved : resolve(std::string(address), flags)) {
        AddressKind resolved_kind = classify_address(resolved);
        if (resolved_kind == AddressKind::loopback || resolved_kind == AddressKind::unspecified ||
            std::find(m_interfaces.begin(), m_interfaces.end(), resolved) != m_interfaces.end()) {
            return true;
        }
    }
    return false;
}

} // namespace colossalai::run
