#include "colossalai/run/selection.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>

namespace colossalai::run {

namespace {

bool contains(const std::vector<Host>& hosts, const std::string& name) {
    return std::any_of(hosts.begin(), hosts.end(),
                       [&](const Host& host) { return host.name == name; });
}

// The hosts named by `list`, each checked against the hostfile.
std::vector<Host> named_hosts(const std::vector<Host>& pool, const std::string& list,
                              std::string_view option, std::string_view source) {
    std::vector<Host> named = parse_host_list(list, option);
    for (const Host& host : named) {
        if (!contains(pool, host.name)) {
            throw usage_error("{}: host '{}' is not in {}", option, host.name, source);
        }
    }
    return named;
}

} // namespace

std::vector<Host> select_hosts(const std::vector<Host>& pool, const Options& options,
                               std::string_view source) {
    std::vector<Host> selected;
    if (options.include) {
        selected = named_hosts(pool, *options.include, "--include", source);
    } else if (options.exclude) {
        std::vector<Host> excluded = named_hosts(pool, *options.exclude, "--exclude", source);
        for (const Host& host : pool) {
            if (!contains(excluded, host.name)) {
                selected.push_back(host);
            }
        }
        if (selected.empty()) {
            throw usage_error("--exclude: no host of {} is left", source);
        }
    } else {
        selected = pool;
    }
    if (options.num_nodes && *options.num_nodes > 0) {
        size_t wanted = static_cast<size_t>(*options.num_nodes);
        if (wanted > selected.size()) {
            throw usage_error("--num_nodes '{}': only {} host{} available", wanted, selected.size(),
                              selected.size() == 1 ? "" : "s");
        }
        selected.resize(wanted);
    }
    return selected;
}

} // namespace colossalai::run
