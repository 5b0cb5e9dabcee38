#include "plan_hosts.hpp"

#include "colossalai/run/host_pattern.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/run/selection.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::run {

HostSource final_hosts(const Options& options, const Context& context, const EngineRow& engine) {
    if (options.host) {
        return {*options.host, "--host", std::nullopt};
    }
    if (options.hostfile) {
        if (!context.hostfile_text) {
            throw fatal_error("the hostfile {} was not read", *options.hostfile);
        }
        std::string source =
            fmt::format("the hostfile {}", util::escape_for_message(*options.hostfile));
        return {select_hosts(parse_hostfile(*context.hostfile_text, *options.hostfile), options,
                             source),
                source, std::nullopt};
    }
    if (std::optional<SchedulerVariable> variable = find_scheduler_variable(context.environment)) {
        if (variable->kind == SchedulerKind::slurm) {
            check_not_in_parallel_step(context.environment);
        }
        std::string source = describe_scheduler(*variable);
        std::vector<Host> pool = scheduler_hosts(*variable, context.nodefile_text);
        bool names_gpus = (options.include && options.include->names_gpus()) ||
                          (options.exclude && options.exclude->names_gpus());
        if (options.nproc_per_node || names_gpus) {
            // A node file counts CPUs or MPI ranks per host, not GPUs: its counts are only a
            // default for --nproc_per_node, never a contradiction of it nor a GPU count.
            for (Host& host : pool) {
                host.slots.reset();
            }
        }
        std::vector<Host> hosts = select_hosts(pool, options, source);
        std::string notice = scheduler_notice(*variable, hosts.size(), pool.size());
        return {std::move(hosts), source, notice};
    }
    if (context.kubeflow_hostfile) {
        // Kubeflow Trainer's launcher pod: the job's hostfile, as if given with --hostfile.
        const auto& [path, text] = *context.kubeflow_hostfile;
        std::string source = fmt::format("Kubeflow's hostfile {}", util::escape_for_message(path));
        std::vector<Host> hosts = select_hosts(parse_hostfile(text, path), options, source);
        std::string notice = fmt::format("using the {} host{} of {} (no --host or --hostfile)",
                                         hosts.size(), hosts.size() == 1 ? "" : "s", source);
        return {std::move(hosts), source, notice};
    }
    if (engine.own_hosts != nullptr) {
        if (std::optional<EngineHosts> own = engine.own_hosts(options)) {
            return {std::move(own->hosts), std::move(own->source), std::move(own->notice), true};
        }
    }
    for (const auto& [given, name] : {std::pair{options.include.has_value(), "--include"},
                                      {options.exclude.has_value(), "--exclude"},
                                      {options.num_nodes.has_value(), "--num_nodes"}}) {
        if (given) {
            throw usage_error(
                "{} needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)", name);
        }
    }
    if (engine.needs_hosts != nullptr) {
        engine.needs_hosts();
    }
    return {.hosts = {parse_host("127.0.0.1", "default host")},
            .source = "the default host",
            .notice = std::nullopt,
            .allocated = false,
            .implicit = true};
}

Placement place_hosts(const Context& context, const HostSource& source, const EngineRow& engine) {
    const std::vector<Host>& hosts = source.hosts;
    Placement placement;
    placement.from_here = engine.reaches_hosts;
    if (source.implicit) { // nothing to look up: no ssh config applies to a host nobody named
        placement.addresses.push_back(hosts.at(0).address);
        placement.local.push_back(true);
        return placement;
    }
    bool via_ssh = engine.reaches_hosts;
    placement.addresses.reserve(hosts.size());
    for (const Host& host : hosts) {
        placement.addresses.push_back(via_ssh && context.host_name ? context.host_name(host.address)
                                                                   : host.address);
    }
    placement.local.assign(hosts.size(), false);
    if (!via_ssh) {
        return placement;
    }
    // A host with a user part is never local: the user asked for a login as someone.
    std::vector<std::string> candidates;
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        if (!hosts[i].user) {
            candidates.push_back(placement.addresses[i]);
            positions.push_back(i);
        }
    }
    std::vector<bool> found;
    if (context.find_local) {
        found = context.find_local(candidates);
    } else {
        for (const std::string& address : candidates) {
            found.push_back(is_loopback(address) ||
                            classify_address(address) == AddressKind::unspecified);
        }
    }
    for (std::size_t i = 0; i < positions.size() && i < found.size(); ++i) {
        placement.local[positions[i]] = found[i];
    }
    return placement;
}

MasterAddress implicit_master(const Context& context, const std::vector<Host>& hosts,
                              const Placement& placement) {
    auto loopback = [](const std::string& address) {
        return is_loopback(address) || classify_address(address) == AddressKind::unspecified;
    };
    const std::string& first = placement.addresses.front();
    std::size_t index = 1;
    while (index < hosts.size() &&
           (placement.local[index] || loopback(placement.addresses[index]))) {
        ++index;
    }
    if (!placement.from_here || !loopback(first) || index == hosts.size()) {
        // A HostName goes into every node's command line: it must be a host as --master_addr.
        return first == hosts.front().address
                   ? MasterAddress{first}
                   : parse_master_address(first, fmt::format("the ssh config's HostName for '{}'",
                                                             hosts.front().address));
    }
    const std::string& target = placement.addresses[index];
    if (context.source_towards) {
        if (std::optional<std::string> source = context.source_towards(target)) {
            if (is_ipv6_link_local(*source)) {
                // Its scope is an interface of this machine: the other nodes would need their
                // own, which the launcher cannot know.
                throw fatal_error("node 0 '{}' is this machine, and its address on the way "
                                  "to '{}' is the IPv6 link-local '{}', which other nodes "
                                  "cannot use as it is (its scope is this machine's "
                                  "interface); set --master_addr to an address every node "
                                  "can reach",
                                  hosts.front().name, hosts[index].name, *source);
            }
            return MasterAddress{*source};
        }
    }
    throw fatal_error("node 0 '{}' is this machine, and no address of it on the way to '{}' "
                      "was found (does '{}' resolve?); set --master_addr to an address every "
                      "node can reach",
                      hosts.front().name, hosts[index].name, target);
}

} // namespace colossalai::run
