#include "colossalai/run/selection.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <string_view>
#include <unordered_map>

namespace colossalai::run {

namespace {

// The entries of a list of hosts by the machine each names, for finding the entry of a host
// however it is spelled (NODE1, node1.) and whatever user the entry logs in as: one hash lookup
// rather than a scan of the list (a hostfile may hold 100,000 hosts, --exclude as many).
class HostIndex {
public:
    // `hosts` must outlive the index.
    explicit HostIndex(const std::vector<Host>& hosts)
        : m_hosts(hosts), m_next(hosts.size(), none) {
        m_first.reserve(hosts.size());
        // Backwards, so that each machine's chain runs in the order of the list.
        for (std::size_t i = hosts.size(); i-- > 0;) {
            auto [it, inserted] = m_first.try_emplace(hosts[i].machine, i);
            if (!inserted) {
                m_next[i] = it->second;
                it->second = i;
            }
        }
    }

    // The first entry for the machine `host` names; a `user@` in `host` must be the entry's own.
    const Host* find(const Host& host) const {
        auto it = m_first.find(host.machine);
        for (std::size_t i = it == m_first.end() ? none : it->second; i != none; i = m_next[i]) {
            if (!host.user || host.user == m_hosts[i].user) {
                return &m_hosts[i];
            }
        }
        return nullptr;
    }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    const std::vector<Host>& m_hosts;
    std::unordered_map<std::string_view, std::size_t> m_first; // machine -> its first entry
    std::vector<std::size_t> m_next; // the next entry for the same machine, or none
};

// The hosts named by `list`, each as the hostfile has it (its spelling, its slots).
std::vector<Host> named_hosts(const HostIndex& pool, const std::vector<Host>& list,
                              std::string_view option, std::string_view source) {
    std::vector<Host> named;
    named.reserve(list.size());
    for (const Host& host : list) {
        const Host* entry = pool.find(host);
        if (entry == nullptr) {
            throw usage_error("{}: host '{}' is not in {}", option, host.name, source);
        }
        named.push_back(*entry);
    }
    return named;
}

} // namespace

std::vector<Host> select_hosts(std::vector<Host> pool, const Options& options,
                               std::string_view source) {
    std::vector<Host> selected;
    if (options.include) {
        selected = named_hosts(HostIndex(pool), *options.include, "--include", source);
    } else if (options.exclude) {
        std::vector<Host> excluded =
            named_hosts(HostIndex(pool), *options.exclude, "--exclude", source);
        HostIndex excluded_index(excluded);
        std::erase_if(pool, [&](const Host& host) { return excluded_index.find(host) != nullptr; });
        if (pool.empty()) {
            throw usage_error("--exclude: no host of {} is left", source);
        }
        selected = std::move(pool);
    } else {
        selected = std::move(pool);
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
