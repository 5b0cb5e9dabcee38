#include "colossalai/run/selection.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>

namespace colossalai::run {

namespace {

// The entry of `hosts` for the machine `host` names, however it is spelled (NODE1, node1.)
// and whatever user the entry logs in as; a `user@` in `host` must be the entry's own.
const Host* find(const std::vector<Host>& hosts, const Host& host) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const Host& other) {
        return other.machine == host.machine && (!host.user || host.user == other.user);
    });
    return it == hosts.end() ? nullptr : &*it;
}

// The hosts named by `list`, each as the hostfile has it (its spelling, its slots).
std::vector<Host> named_hosts(const std::vector<Host>& pool, const std::vector<Host>& list,
                              std::string_view option, std::string_view source) {
    std::vector<Host> named;
    for (const Host& host : list) {
        const Host* entry = find(pool, host);
        if (entry == nullptr) {
            throw usage_error("{}: host '{}' is not in {}", option, host.name, source);
        }
        named.push_back(*entry);
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
            if (find(excluded, host) == nullptr) {
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
