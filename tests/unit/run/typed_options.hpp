#pragma once

// run::Options holds values as the cli parsed them; tests write them as a user would type them.

#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::test {

// --host / --include / --exclude "a,b".
inline std::vector<run::Host> hosts(std::string_view list) {
    return run::parse_host_list(list, "--host");
}

// The names of `hosts`, in order: what a test compares.
inline std::vector<std::string> names(const std::vector<run::Host>& hosts) {
    std::vector<std::string> result;
    for (const run::Host& host : hosts) {
        result.push_back(host.name);
    }
    return result;
}

// --extra_launch_args "a=1,b".
inline std::vector<run::LaunchArg> launch_args(std::string_view text) {
    return run::parse_extra_launch_args(text);
}

// --network-interface "eth0,ib0".
inline run::NetworkInterfaces interfaces(std::string_view text) {
    return run::parse_network_interfaces(text);
}

// --nproc_per_node "4" / "gpu".
inline run::NprocPerNode nproc(std::string_view text) {
    std::optional<run::NprocPerNode> value = run::parse_nproc_per_node(text);
    if (!value) {
        throw std::invalid_argument("not a --nproc_per_node value: " + std::string(text));
    }
    return *value;
}

} // namespace colossalai::test
