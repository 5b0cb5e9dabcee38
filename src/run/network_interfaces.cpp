#include "colossalai/run/network_interfaces.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::run {

namespace {

// IFNAMSIZ is 16 with the terminating NUL.
constexpr std::size_t max_interface_name = 15;

bool is_interface_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == ':' || c == '@' || c == '-';
}

} // namespace

NetworkInterfaces parse_network_interfaces(std::string_view text) {
    std::string_view names = text;
    bool exclude = !names.empty() && names.front() == '^';
    if (exclude) {
        names.remove_prefix(1);
    }
    bool exact = !names.empty() && names.front() == '=';
    if (exact) {
        names.remove_prefix(1);
    }
    if (names.empty()) {
        throw usage_error("--network-interface '{}': no interface name",
                          util::escape_for_message(text));
    }
    NetworkInterfaces parsed;
    parsed.nccl = std::string(text);
    for (const std::string& name : util::split(names, ',')) {
        if (name.empty()) {
            throw usage_error("--network-interface '{}': an empty name",
                              util::escape_for_message(text));
        }
        if (name.size() > max_interface_name ||
            !std::all_of(name.begin(), name.end(), is_interface_char)) {
            throw usage_error("--network-interface '{}': '{}' is not an interface name (at most "
                              "15 letters, digits and _.:@-)",
                              util::escape_for_message(text), util::escape_for_message(name));
        }
        if (!exclude) {
            parsed.required.push_back(name);
        }
    }
    if (!exclude) {
        parsed.gloo = std::string(names);
    }
    return parsed;
}

} // namespace colossalai::run
