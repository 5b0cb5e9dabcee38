#include "colossalai/run/hosts.hpp"

#include "colossalai/run/host_pattern.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace colossalai::run {

namespace {

bool is_name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

// Why `text` (with a ':') is not an IPv6 address with an optional `%zone`; nullopt if it is.
std::optional<std::string> ipv6_problem(std::string_view text) {
    size_t percent = text.find('%');
    std::string address(text.substr(0, percent));
    in6_addr parsed{};
    bool zone_ok = percent == std::string_view::npos ||
                   (percent + 1 < text.size() &&
                    std::all_of(text.begin() + percent + 1, text.end(), is_name_char));
    if (!zone_ok || inet_pton(AF_INET6, address.c_str(), &parsed) != 1) {
        return "not an IPv6 address (an SSH port goes in --ssh-port or ~/.ssh/config)";
    }
    return std::nullopt;
}

// `address` (valid) as the machine it names: see Host::machine.
std::string machine_of(std::string_view address) {
    if (address.find(':') != std::string_view::npos) {
        size_t percent = address.find('%');
        std::string bare(address.substr(0, percent));
        in6_addr parsed{};
        char text[INET6_ADDRSTRLEN] = {};
        if (inet_pton(AF_INET6, bare.c_str(), &parsed) == 1 &&
            inet_ntop(AF_INET6, &parsed, text, sizeof text) != nullptr) {
            bare = text;
        }
        return percent == std::string_view::npos ? bare
                                                 : bare + std::string(address.substr(percent));
    }
    std::string name = util::ascii_lower(address);
    if (name.size() > 1 && name.back() == '.') {
        name.pop_back();
    }
    return name;
}

// Why `text` is not a valid host; nullopt when it is. Fills `host` when valid.
std::optional<std::string> host_problem(std::string_view text, Host& host) {
    if (text.empty()) {
        return "empty name";
    }
    for (unsigned char c : text) {
        if (c == ' ' || c == '\t') {
            return "contains whitespace (one host per line or per comma-separated item)";
        }
        if (c < 0x20 || c == 0x7f) {
            return "contains a control character";
        }
        if (c >= 0x80) {
            return "contains a non-ASCII byte";
        }
    }
    if (text.front() == '-') {
        return "starts with '-'";
    }
    std::string_view address = text;
    size_t at = text.find('@');
    if (at != std::string_view::npos) {
        std::string_view user = text.substr(0, at);
        address = text.substr(at + 1);
        if (user.empty()) {
            return "empty user name before '@'";
        }
        if (user.size() > max_user_name) {
            return fmt::format("user name longer than {} characters", max_user_name);
        }
        auto bad = std::find_if_not(user.begin(), user.end(), is_name_char);
        if (bad != user.end()) {
            return fmt::format("user name contains '{}'", *bad);
        }
        host.user = std::string(user);
    }
    bool bracketed = !address.empty() && address.front() == '[';
    if (bracketed) {
        if (address.size() < 3 || address.back() != ']') {
            return "an IPv6 address in brackets must end with ']'";
        }
        address = address.substr(1, address.size() - 2);
        if (address.find(':') == std::string_view::npos) {
            return "brackets are only for IPv6 addresses";
        }
    }
    if (address.empty()) {
        return "empty host after '@'";
    }
    if (address.front() == '-') {
        return "host starts with '-'";
    }
    if (address.size() > max_host_name) {
        return fmt::format("longer than {} characters (the longest DNS name)", max_host_name);
    }
    if (address.find(':') != std::string_view::npos) {
        if (std::optional<std::string> problem = ipv6_problem(address)) {
            return problem;
        }
    } else {
        auto bad = std::find_if_not(address.begin(), address.end(), is_name_char);
        if (bad != address.end()) {
            return fmt::format("contains '{}'", *bad);
        }
    }
    host.name = std::string(text);
    host.address = std::string(address);
    host.machine = machine_of(address);
    return std::nullopt;
}

// How a duplicate's message names the host seen before: nothing more when spelled the same.
std::string same_machine(const Host& host, const Host& first, std::string_view first_at) {
    if (host.name == first.name) {
        return first_at.empty() ? std::string() : fmt::format(" (first {})", first_at);
    }
    return fmt::format(" (the same machine as '{}'{}{})", first.name, first_at.empty() ? "" : " ",
                       first_at);
}

// The processes per node that the words after the host give: `slots=N`, else `max_slots=N`.
std::optional<int> parse_slots(const std::vector<std::string_view>& words, std::string_view where) {
    std::optional<int> slots;
    std::optional<int> max_slots;
    for (size_t i = 1; i < words.size(); ++i) {
        std::string shown = util::escape_for_message(words[i]);
        size_t equals = words[i].find('=');
        std::string_view key = words[i].substr(0, equals);
        if (equals == std::string_view::npos || (key != "slots" && key != "max_slots")) {
            throw usage_error("{}: '{}' after the host: expected slots=N or max_slots=N (one "
                              "host per line)",
                              where, shown);
        }
        std::optional<int>& target = key == "slots" ? slots : max_slots;
        if (target) {
            throw usage_error("{}: {} is given twice", where, key);
        }
        target = parse_positive_int(words[i].substr(equals + 1));
        if (!target) {
            throw usage_error("{}: '{}': {} must be a positive integer", where, shown, key);
        }
    }
    if (slots && max_slots && *slots > *max_slots) {
        throw usage_error("{}: slots={} is more than max_slots={}", where, *slots, *max_slots);
    }
    return slots ? slots : max_slots;
}

} // namespace

Host parse_host(std::string_view text, std::string_view where) {
    Host host;
    if (std::optional<std::string> problem = host_problem(text, host)) {
        throw usage_error("{}: invalid host '{}': {}", where, util::escape_for_message(text),
                          *problem);
    }
    return host;
}

std::vector<Host> parse_hostfile(std::string_view text, std::string_view file) {
    // The name as the messages show it: a file name may hold a newline or bytes that are not
    // UTF-8, and each error must stay one printable line.
    const std::string path = util::escape_for_message(file);
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (util::starts_with(text, bom)) {
        text.remove_prefix(bom.size());
    }
    if (size_t nul = text.find('\0'); nul != std::string_view::npos) {
        size_t line = 1 + std::count(text.begin(), text.begin() + nul, '\n');
        throw usage_error("{}:{}: NUL byte: not a text file", path, line);
    }
    std::vector<Host> hosts;
    // One host a line is the usual file: room for that many at once, rather than a list that
    // doubles (and moves every host) as it grows (100,000 hosts).
    hosts.reserve(std::min<size_t>(
        static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1, max_expanded_hosts));
    // machine -> line, index in hosts: hashed, one lookup a host (100,000 hosts)
    std::unordered_map<std::string, std::pair<size_t, size_t>> first;
    first.reserve(hosts.capacity());
    size_t number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++number;
        line = util::trim(line.substr(0, line.find('#')));
        if (line.empty()) {
            continue;
        }
        std::string where = fmt::format("{}:{}", path, number);
        std::vector<std::string_view> words = util::split_blank_words(line);
        // The host first: its problem is the likelier one (`-oProxyCommand=touch /tmp/x`).
        std::vector<Host> line_hosts;
        for (const std::string& name :
             expand_host_pattern(words.front(), where, max_expanded_hosts - hosts.size())) {
            line_hosts.push_back(parse_host(name, where));
        }
        std::optional<int> slots = parse_slots(words, where);
        for (Host& host : line_hosts) {
            host.slots = slots;
            auto [it, inserted] = first.emplace(host.machine, std::pair(number, hosts.size()));
            if (!inserted) {
                const auto& [line, index] = it->second;
                throw usage_error(
                    "{}: duplicate host '{}'{}", where, host.name,
                    same_machine(host, hosts[index], fmt::format("at line {}", line)));
            }
            hosts.push_back(std::move(host));
        }
    }
    if (hosts.empty()) {
        throw usage_error("{}: no hosts in the hostfile", path);
    }
    // Kept until the plan is made: not up to twice its size (a range grew it), though a few
    // comment lines' worth of room is not worth a copy of the list.
    if (hosts.capacity() - hosts.size() > hosts.size() / 8) {
        hosts.shrink_to_fit();
    }
    return hosts;
}

std::vector<Host> parse_host_list(std::string_view list, std::string_view option) {
    if (util::trim(list).empty()) {
        throw usage_error("{}: empty host list", option);
    }
    std::vector<Host> hosts;
    std::unordered_map<std::string, size_t> seen; // machine -> index in hosts
    for (std::string_view item : split_host_list(list)) {
        std::string_view pattern = util::trim(item);
        if (pattern.empty()) {
            throw usage_error("{} '{}': empty host name in the list", option,
                              util::escape_for_message(list));
        }
        std::vector<std::string> names =
            expand_host_pattern(pattern, option, max_expanded_hosts - hosts.size());
        if (hosts.size() + names.size() > hosts.capacity()) {
            // A range of 100,000: one allocation; a list of single names still doubles.
            hosts.reserve(std::max(hosts.size() + names.size(), 2 * hosts.capacity()));
        }
        for (const std::string& name : names) {
            Host host = parse_host(name, option);
            auto [it, inserted] = seen.emplace(host.machine, hosts.size());
            if (!inserted) {
                throw usage_error("{}: duplicate host '{}'{}", option, host.name,
                                  same_machine(host, hosts[it->second], ""));
            }
            hosts.push_back(std::move(host));
        }
    }
    return hosts;
}

} // namespace colossalai::run
