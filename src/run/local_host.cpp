#include "colossalai/run/local_host.hpp"

#include "colossalai/util/fd.hpp"
#include "colossalai/util/strings.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>

namespace colossalai::run {

namespace {

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

using AddrInfo = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

// getaddrinfo for `host`; null when it does not resolve. AI_NUMERICHOST never sends a query.
AddrInfo look_up(const std::string& host, int flags) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    addrinfo* results = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) {
        return {nullptr, &freeaddrinfo};
    }
    return {results, &freeaddrinfo};
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

std::vector<std::string> resolve(const std::string& host, int flags) {
    std::vector<std::string> addresses;
    AddrInfo results = look_up(host, flags);
    for (const addrinfo* entry = results.get(); entry != nullptr; entry = entry->ai_next) {
        if (std::optional<std::string> text = numeric(entry->ai_addr)) {
            addresses.push_back(std::move(*text));
        }
    }
    return addresses;
}

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

bool is_ipv6_link_local(std::string_view address) {
    std::string copy(address.substr(0, address.find('%')));
    in6_addr v6{};
    return inet_pton(AF_INET6, copy.c_str(), &v6) == 1 && v6.s6_addr[0] == 0xfe &&
           (v6.s6_addr[1] & 0xc0) == 0x80;
}

bool is_loopback(std::string_view address) {
    return util::ascii_lower(address) == "localhost" ||
           classify_address(address) == AddressKind::loopback;
}

bool resolves_to_local(const std::vector<std::string>& resolved, const MachineIdentity& identity) {
    return std::any_of(resolved.begin(), resolved.end(), [&](const std::string& address) {
        AddressKind kind = classify_address(address);
        return kind == AddressKind::loopback || kind == AddressKind::unspecified ||
               contains(identity.interfaces, address);
    });
}

std::optional<bool> local_without_lookup(std::string_view address,
                                         const MachineIdentity& identity) {
    std::string name = util::ascii_lower(address);
    if (name == "localhost" || contains(identity.names, name)) {
        return true;
    }
    // Numeric forms (also "127.1" or "fe80::1%lo") are converted without any query.
    std::vector<std::string> numeric_forms = resolve(std::string(address), AI_NUMERICHOST);
    if (!numeric_forms.empty()) {
        return resolves_to_local(numeric_forms, identity);
    }
    return std::nullopt;
}

std::optional<std::string> route_source(const std::string& address) {
    AddrInfo target = look_up(address, AI_NUMERICHOST);
    if (!target) {
        return std::nullopt;
    }
    util::Fd fd(socket(target->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!fd) {
        return std::nullopt;
    }
    sockaddr_storage destination{};
    std::memcpy(&destination, target->ai_addr, target->ai_addrlen);
    // Any port: connect() on a UDP socket only chooses the route and the source address.
    if (target->ai_family == AF_INET) {
        reinterpret_cast<sockaddr_in*>(&destination)->sin_port = htons(9);
    } else {
        reinterpret_cast<sockaddr_in6*>(&destination)->sin6_port = htons(9);
    }
    sockaddr_storage source{};
    socklen_t length = sizeof source;
    std::optional<std::string> result;
    if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&destination), target->ai_addrlen) ==
            0 &&
        getsockname(fd.get(), reinterpret_cast<sockaddr*>(&source), &length) == 0) {
        result = numeric(reinterpret_cast<const sockaddr*>(&source));
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&source);
        char name[IF_NAMESIZE] = {};
        if (result && source.ss_family == AF_INET6 && v6->sin6_scope_id != 0 &&
            if_indextoname(v6->sin6_scope_id, name) != nullptr) {
            *result += "%" + std::string(name);
        }
    }
    return result;
}

LocalHostDetector::LocalHostDetector() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) == 0 && buffer[0] != '\0') {
        std::string name = util::ascii_lower(buffer);
        m_identity.names.push_back(name);
        m_identity.names.push_back(name.substr(0, name.find('.')));
    }
    ifaddrs* interfaces = nullptr;
    if (getifaddrs(&interfaces) == 0) {
        for (const ifaddrs* entry = interfaces; entry != nullptr; entry = entry->ifa_next) {
            if (entry->ifa_addr == nullptr) {
                continue;
            }
            if (std::optional<std::string> text = numeric(entry->ifa_addr)) {
                m_identity.interfaces.push_back(std::move(*text));
            }
        }
        freeifaddrs(interfaces);
    }
}

std::vector<bool> LocalHostDetector::operator()(const std::vector<std::string>& addresses,
                                                std::chrono::milliseconds bound) {
    std::vector<bool> local(addresses.size(), false);
    std::vector<std::string> names; // unique, in order
    // What `names` holds, for a lookup rather than a scan per address (100,000 hosts).
    std::unordered_set<std::string_view> listed;
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        if (std::optional<bool> known = local_without_lookup(addresses[i], m_identity)) {
            local[i] = *known;
        } else if (listed.insert(addresses[i]).second) {
            names.push_back(addresses[i]);
        }
    }
    std::vector<std::optional<std::vector<std::string>>> answers =
        resolve_concurrently(names, bound);
    // Only the names that resolved are kept: one that did not is another machine and is its own
    // candidate for source_towards, as one never looked up (100,000 failed names: 5 MB).
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (answers[i] && !answers[i]->empty()) {
            m_resolved[names[i]] = std::move(*answers[i]);
        } else if (answers[i]) {
            m_resolved.erase(names[i]);
        }
    }
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        auto found = m_resolved.find(addresses[i]);
        if (found != m_resolved.end()) {
            local[i] = resolves_to_local(found->second, m_identity);
        }
    }
    return local;
}

std::optional<std::string> LocalHostDetector::source_towards(const std::string& address) const {
    std::vector<std::string> candidates{address};
    if (auto found = m_resolved.find(address); found != m_resolved.end()) {
        candidates = found->second;
    }
    for (const std::string& candidate : candidates) {
        std::optional<std::string> source = route_source(candidate);
        if (source && classify_address(*source) == AddressKind::other) {
            return source;
        }
    }
    return std::nullopt;
}

} // namespace colossalai::run
