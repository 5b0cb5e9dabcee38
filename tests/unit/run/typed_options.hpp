#pragma once

// run::Options holds values as the cli parsed them; tests write them as a user would type them.

#include "colossalai/run/env_values.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"
#include "colossalai/run/options.hpp"

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

// --extra_launch_args "a=1,master_addr=x" into `options` as the cli reads it: the items, with
// master_addr and master_port typed apart.
inline void set_extra_launch_args(run::Options& options, std::string_view text) {
    std::vector<run::LaunchArg> args = run::parse_extra_launch_args(text);
    options.extra_master = run::take_extra_master(args);
    options.extra_elastic = run::take_extra_elastic(args);
    options.extra_launch_args = std::move(args);
}

// -x WORD..., in order.
inline std::vector<run::EnvExport> exports(const std::vector<std::string>& words) {
    std::vector<run::EnvExport> result;
    for (const std::string& word : words) {
        result.push_back(run::parse_env_export(word));
    }
    return result;
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
