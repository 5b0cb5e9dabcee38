#include "colossalai/run/preflight.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::run {

std::string describe(const PreflightFailure& failure) {
    std::string subject = util::escape_for_message(failure.subject);
    switch (failure.check) {
    case PreflightCheck::working_directory:
        return fmt::format("no working directory '{}' (the launcher's current directory must "
                           "exist on every node: a shared file system, or cd to a path that "
                           "does)",
                           subject);
    case PreflightCheck::command:
        return fmt::format("cannot find '{}' (on the node's PATH; give a Python that has PyTorch "
                           "with --python PATH, or set the node's PATH with -x PATH=...)",
                           subject);
    case PreflightCheck::master_address:
        return fmt::format("cannot resolve master address '{}' (set --master_addr to an address "
                           "every node can reach)",
                           subject);
    case PreflightCheck::network_interface:
        return fmt::format("no network interface '{}' (see 'ip -br link' on the node; "
                           "--network-interface names must exist on every node)",
                           subject);
    }
    return subject;
}

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
