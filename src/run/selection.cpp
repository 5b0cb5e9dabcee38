#include "colossalai/run/selection.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
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

// The reading of `selection` whose hosts are all in the pool: `alice@h1` is the host h1 as the
// user alice when the pool has that entry, the hosts alice and h1 (DeepSpeed's '@') when it has
// those. Both fitting is an error that shows both; neither, the first's error follows.
const std::vector<NodeSpec>& choose_reading(const HostIndex& pool, const HostSelection& selection,
                                            std::string_view option, std::string_view source) {
    const std::vector<std::vector<NodeSpec>>& readings = selection.readings;
    auto fits = [&](const std::vector<NodeSpec>& nodes) {
        return std::all_of(nodes.begin(), nodes.end(),
                           [&](const NodeSpec& node) { return pool.find(node.host) != nullptr; });
    };
    if (readings.size() < 2 || !fits(readings[1])) {
        return readings.at(0);
    }
    if (fits(readings[0])) {
        throw usage_error("{} '{}' reads two ways in {}: {} (a host as a user) or {} (DeepSpeed's "
                          "'@' between nodes); write the host without its user (the hostfile's "
                          "entry says who logs in)",
                          option, util::escape_for_message(selection.text), source,
                          describe_reading(readings[0]), describe_reading(readings[1]));
    }
    return readings[1];
}

const Host& entry_of(const HostIndex& pool, const NodeSpec& node, std::string_view option,
                     std::string_view source) {
    const Host* entry = pool.find(node.host);
    if (entry == nullptr) {
        throw usage_error("{}: host '{}' is not in {}", option, node.host.name, source);
    }
    return *entry;
}

// Checks that the GPU indices named for `entry` are among its slots, when the pool says.
void check_indices(const Host& entry, const std::vector<int>& gpus, std::string_view option,
                   std::string_view source) {
    for (int index : gpus) {
        if (entry.slots && index >= *entry.slots) {
            throw usage_error("{}: GPU {} of '{}' is beyond its slots={} in {} (GPUs 0-{})", option,
                              index, entry.name, *entry.slots, source, *entry.slots - 1);
        }
    }
}

// Every GPU of `entry` (0..slots-1): a whole host in a selection that names GPU indices.
std::vector<int> all_gpus(const Host& entry, std::string_view option, std::string_view source,
                          std::string_view why) {
    if (!entry.slots) {
        throw usage_error("{}: '{}' has no slots= in {}, so {} (give it slots=N, or name its "
                          "GPUs: '{}:0,1')",
                          option, entry.name, source, why, entry.name);
    }
    std::vector<int> gpus(static_cast<std::size_t>(*entry.slots));
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        gpus[i] = static_cast<int>(i);
    }
    return gpus;
}

constexpr std::string_view whole_host_why =
    "its GPUs are unknown (GPU indices elsewhere in the selection: every node runs one process "
    "per GPU)";

std::vector<Host> include_hosts(const std::vector<Host>& pool, const HostSelection& selection,
                                std::string_view source) {
    HostIndex index(pool);
    const std::vector<NodeSpec>& nodes = choose_reading(index, selection, "--include", source);
    bool gpu_mode = std::any_of(nodes.begin(), nodes.end(),
                                [](const NodeSpec& node) { return node.gpus.has_value(); });
    std::vector<Host> selected;
    selected.reserve(nodes.size());
    for (const NodeSpec& node : nodes) {
        Host host = entry_of(index, node, "--include", source);
        if (node.gpus) {
            check_indices(host, *node.gpus, "--include", source);
            host.gpus = *node.gpus;
        } else if (gpu_mode) {
            host.gpus = all_gpus(host, "--include", source, whole_host_why);
        }
        selected.push_back(std::move(host));
    }
    return selected;
}

std::vector<Host> exclude_hosts(std::vector<Host> pool, const HostSelection& selection,
                                std::string_view source) {
    std::vector<Host> entries; // the pool's entries the selection names
    std::vector<const NodeSpec*> specs;
    bool gpu_mode = false;
    {
        HostIndex index(pool);
        const std::vector<NodeSpec>& nodes = choose_reading(index, selection, "--exclude", source);
        for (const NodeSpec& node : nodes) {
            entries.push_back(entry_of(index, node, "--exclude", source));
            specs.push_back(&node);
            gpu_mode = gpu_mode || node.gpus.has_value();
        }
    }
    // An entry without a user is excluded by any entry for its machine that was named (a pool
    // may name one machine twice, as different users).
    HostIndex excluded(entries);
    std::vector<Host> kept;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        Host& host = pool[i];
        const Host* entry = excluded.find(host);
        const NodeSpec* node =
            entry == nullptr ? nullptr : specs[static_cast<std::size_t>(entry - entries.data())];
        if (node != nullptr && !node->gpus) {
            continue;
        }
        if (node != nullptr) {
            check_indices(host, *node->gpus, "--exclude", source);
            std::vector<int> left = all_gpus(host, "--exclude", source,
                                             "the GPUs left after excluding some are unknown");
            std::erase_if(left, [&](int gpu) {
                return std::find(node->gpus->begin(), node->gpus->end(), gpu) != node->gpus->end();
            });
            if (left.empty()) {
                continue; // DeepSpeed drops a node without GPUs left
            }
            host.gpus = std::move(left);
        } else if (gpu_mode) {
            host.gpus = all_gpus(host, "--exclude", source, whole_host_why);
        }
        kept.push_back(std::move(host));
    }
    if (kept.empty()) {
        throw usage_error("--exclude: no host of {} is left", source);
    }
    return kept;
}

} // namespace

std::vector<Host> select_hosts(std::vector<Host> pool, const Options& options,
                               std::string_view source) {
    std::vector<Host> selected;
    if (options.include) {
        selected = include_hosts(pool, *options.include, source);
    } else if (options.exclude) {
        selected = exclude_hosts(std::move(pool), *options.exclude, source);
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
