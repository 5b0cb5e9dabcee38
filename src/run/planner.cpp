#include "colossalai/run/planner.hpp"

#include "colossalai/run/environment.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/host_pattern.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/launch_command.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/run/selection.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::run {

namespace {

// The hosts to run on and, for messages, where they came from.
struct HostSource {
    std::vector<Host> hosts;
    std::string source;
    std::optional<std::string> notice; // where the hosts came from, when the user did not say
    bool allocated = false;            // srun allocates: the hosts are placeholders
    bool implicit = false;             // no host given: this machine, never reached over SSH
};

HostSource final_hosts(const Options& options, const Context& context) {
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
    if (options.launcher == Launcher::slurm && options.num_nodes && *options.num_nodes > 0 &&
        !options.include && !options.exclude) {
        // srun allocates any N nodes; each task names its node when it starts.
        if (static_cast<std::size_t>(*options.num_nodes) > max_expanded_hosts) {
            throw usage_error("--num_nodes '{}': more than {} nodes", *options.num_nodes,
                              max_expanded_hosts);
        }
        std::vector<Host> hosts;
        for (int rank = 0; rank < *options.num_nodes; ++rank) {
            Host host;
            host.name = fmt::format("(node {})", rank);
            host.address = host.name;
            hosts.push_back(std::move(host));
        }
        std::string notice =
            fmt::format("srun allocates {} node{}; each is named by its task when it starts",
                        hosts.size(), hosts.size() == 1 ? "" : "s");
        return {std::move(hosts), "srun's allocation", notice, true};
    }
    for (const auto& [given, name] : {std::pair{options.include.has_value(), "--include"},
                                      {options.exclude.has_value(), "--exclude"},
                                      {options.num_nodes.has_value(), "--num_nodes"}}) {
        if (given) {
            throw usage_error("{} needs --hostfile (or the hosts of a Slurm or PBS job)", name);
        }
    }
    if (options.launcher == Launcher::slurm) {
        throw usage_error("--launcher slurm needs the nodes: --num_nodes N (srun allocates them), "
                          "--host or --hostfile, or run it inside a Slurm allocation (salloc, "
                          "sbatch)");
    }
    return {.hosts = {parse_host("127.0.0.1", "default host")},
            .source = "the default host",
            .notice = std::nullopt,
            .allocated = false,
            .implicit = true};
}

// The PyTorch version as normalised text and as a comparable version. An unreadable version
// counts as unknown (a current PyTorch is assumed) and earns a warning.
std::optional<util::Version> torch_version(const Context& context, Plan& plan) {
    if (!context.torch_version) {
        return std::nullopt;
    }
    std::string normalized = util::normalize_release(*context.torch_version);
    std::optional<util::Version> version = util::parse_version(normalized);
    if (!version) {
        plan.warnings.push_back(
            fmt::format("cannot read the PyTorch version '{}'; assuming PyTorch >= 2.0 (torchrun)",
                        *context.torch_version));
        return std::nullopt;
    }
    plan.torch_version = normalized;
    return version;
}

// What each host is called on the network (its ssh-config HostName over SSH) and whether it is
// this machine. Slurm starts every node itself: no ssh config, no lookup.
struct Placement {
    std::vector<std::string> addresses;
    std::vector<bool> local;
};

Placement place_hosts(const Options& options, const Context& context, const HostSource& source) {
    const std::vector<Host>& hosts = source.hosts;
    Placement placement;
    if (source.implicit) { // nothing to look up: no ssh config applies to a host nobody named
        placement.addresses.push_back(hosts.at(0).address);
        placement.local.push_back(true);
        return placement;
    }
    bool via_ssh = options.launcher == Launcher::ssh;
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

// Node 0's address as the other nodes must use it: its HostName; when that is a loopback name
// (this machine, also as `root@localhost`) while another node is on another machine, this
// machine's address on the route to the first such node. Slurm places nodes itself: the name
// stays.
std::string implicit_master(const Options& options, const Context& context,
                            const std::vector<Host>& hosts, const Placement& placement) {
    auto loopback = [](const std::string& address) {
        return is_loopback(address) || classify_address(address) == AddressKind::unspecified;
    };
    const std::string& first = placement.addresses.front();
    std::size_t index = 1;
    while (index < hosts.size() &&
           (placement.local[index] || loopback(placement.addresses[index]))) {
        ++index;
    }
    if (options.launcher != Launcher::ssh || !loopback(first) || index == hosts.size()) {
        // A HostName goes into every node's command line: it must be a host as --master_addr.
        return first == hosts.front().address
                   ? first
                   : master_address(first, fmt::format("the ssh config's HostName for '{}'",
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
            return *source;
        }
    }
    throw fatal_error("node 0 '{}' is this machine, and no address of it on the way to '{}' "
                      "was found (does '{}' resolve?); set --master_addr to an address every "
                      "node can reach",
                      hosts.front().name, hosts[index].name, target);
}

// Warns about an explicit loopback master address when some node runs on another machine.
void check_master_address(const std::string& master_addr, std::string_view source,
                          const std::vector<NodeCommand>& nodes, Plan& plan) {
    auto remote = std::find_if(nodes.begin(), nodes.end(),
                               [](const NodeCommand& node) { return !node.local; });
    if (nodes.size() < 2 || remote == nodes.end() || !is_loopback(master_addr)) {
        return;
    }
    plan.warnings.push_back(fmt::format("{} '{}' is a loopback address: the nodes on other "
                                        "machines (such as '{}') cannot reach it",
                                        source, master_addr, remote->host));
}

// --launcher slurm: every node is a task of one srun step, none is started locally or over SSH.
// An elastic launch (--nnodes MIN:MAX, or a rendezvous option given): the rendezvous every
// node's torchrun meets at, by default c10d on the master under a fresh id. nullopt: a static
// launch (torchrun's own default). The hosts must number between MIN and MAX.
std::optional<ElasticPlan> plan_elastic(const ElasticOptions& given, const HostSource& source,
                                        const LaunchSpec& spec, const Context& context) {
    NodeRange range = given.nnodes.value_or(NodeRange{spec.nnodes, spec.nnodes});
    if (spec.nnodes < range.min || spec.nnodes > range.max) {
        throw usage_error("--nnodes {}: {} host{} from {}; give {} {}", to_string(range),
                          spec.nnodes, spec.nnodes == 1 ? "" : "s", source.source,
                          range.elastic() ? "between" : "exactly",
                          range.elastic() ? fmt::format("{} and {}", range.min, range.max)
                                          : std::to_string(range.min));
    }
    if (!range.elastic() && !given.rdzv_backend && !given.rdzv_endpoint && !given.rdzv_id) {
        return std::nullopt;
    }
    if (spec.form == LauncherForm::distributed_launch) {
        throw usage_error("an elastic launch (--nnodes MIN:MAX, --rdzv_*) needs PyTorch 1.9 or "
                          "newer (torch.distributed.run)");
    }
    ElasticPlan plan;
    plan.nodes = range;
    plan.backend = given.rdzv_backend.value_or(RdzvBackend::c10d);
    if (plan.backend == RdzvBackend::static_tcp && range.elastic()) {
        throw usage_error("--rdzv_backend static: needs a fixed number of nodes (--nnodes N), not "
                          "{}; use c10d for an elastic launch",
                          to_string(range));
    }
    if (given.rdzv_endpoint) {
        plan.endpoint = *given.rdzv_endpoint;
    } else if (source.allocated) {
        throw usage_error("an elastic launch on nodes that srun allocates needs --rdzv_endpoint "
                          "(the master is not known before the nodes are)");
    } else {
        plan.endpoint = {spec.master_addr, parse_positive_int(spec.master_port).value_or(0)};
    }
    plan.id = given.rdzv_id ? *given.rdzv_id : context.fresh_rdzv_id();
    plan.max_restarts = given.max_restarts;
    return plan;
}

SrunLaunch plan_srun(const Options& options, bool allocated, Plan& plan) {
    for (NodeCommand& node : plan.nodes) {
        if (node.user) {
            throw usage_error("--launcher slurm: host '{}' names a user; Slurm runs every task "
                              "as the user who starts srun",
                              node.host);
        }
        node.local = false;
    }
    return {options.srun_args.value_or(std::vector<std::string>{}), allocated};
}

// A launch with GPU indices: torch.distributed.launch (PyTorch < 1.9) computes the world size as
// nproc_per_node * nnodes, which is wrong when the nodes' counts differ; and the launcher's own
// CUDA_VISIBLE_DEVICES gives way to each node's selection (DeepSpeed ignores it alike).
void check_gpu_selection(const std::vector<Host>& hosts, LauncherForm form, Plan& plan,
                         const Context& context) {
    if (form == LauncherForm::distributed_launch) {
        auto differs = std::find_if(hosts.begin(), hosts.end(), [&](const Host& host) {
            return host.gpus->size() != hosts.front().gpus->size();
        });
        if (differs != hosts.end()) {
            throw usage_error("'{}' runs {} processes and '{}' {}: nodes with different GPU "
                              "counts need PyTorch 1.9 or newer (found {})",
                              hosts.front().name, hosts.front().gpus->size(), differs->name,
                              differs->gpus->size(), plan.torch_version.value_or("an older one"));
        }
    }
    if (std::optional<std::string> own =
            find_variable(context.environment, job::cuda_visible_devices)) {
        plan.warnings.push_back(fmt::format(
            "the launcher's {}={} is not passed on: each node's GPUs are those --include or "
            "--exclude select (indices of the node's own GPUs)",
            job::cuda_visible_devices, util::escape_for_message(*own)));
    }
}

} // namespace

Plan make_plan(const Options& options, const Context& context) {
    HostSource source = final_hosts(options, context);
    const std::vector<Host>& hosts = source.hosts;

    Plan plan;
    plan.warnings = context.warnings;
    if (source.notice) {
        plan.notices.push_back(*source.notice);
    }
    if (options.env_files.empty() && !context.env_files.empty()) {
        plan.notices.push_back(fmt::format("setting the variables of {} on every node",
                                           util::escape_for_message(context.env_files[0].path)));
    }
    std::optional<util::Version> torch = torch_version(context, plan);
    if (options.module && torch && torch->major < 2) {
        throw usage_error("-m needs PyTorch 2.0 or newer (found {})", *plan.torch_version);
    }

    LaunchSpec spec;
    spec.form = launcher_form(torch);
    spec.python = context.python.value_or("python3");
    if (options.python) {
        // The interpreter the nodes run: `-m torch.distributed.run` works where no torchrun
        // script is on the node's PATH.
        spec.python = *options.python;
        if (spec.form == LauncherForm::torchrun) {
            spec.form = LauncherForm::distributed_run;
        }
    }
    // With GPU indices in --include/--exclude every node has its GPUs (select_hosts), and runs
    // one process per GPU: the counts may differ from node to node.
    bool gpu_selection = !hosts.empty() && hosts.front().gpus.has_value();
    std::optional<NprocPerNode> nproc; // every node's, without a GPU selection
    if (gpu_selection) {
        check_gpu_selection(hosts, spec.form, plan, context);
    } else {
        nproc = resolve_nproc_per_node(options.nproc_per_node, hosts, source.source, spec.form,
                                       plan.torch_version);
        spec.nproc_per_node = to_string(*nproc);
    }
    spec.nnodes = static_cast<int>(hosts.size());
    if (options.extra_launch_args) {
        spec.extra = *options.extra_launch_args;
    }
    ElasticOptions elastic = given_elastic_options(options);
    for (std::string_view folded : {"max_restarts", "rdzv_backend", "rdzv_endpoint", "rdzv_id"}) {
        take_value(spec.extra, folded); // folded into `elastic`: written once, below
    }
    std::optional<std::string> extra_addr = take_value(spec.extra, "master_addr");
    std::optional<std::string> extra_port = take_value(spec.extra, "master_port");
    spec.master_port = extra_port.value_or(std::to_string(options.master_port));
    spec.master_addr = extra_addr ? master_address(*extra_addr, "--extra_launch_args master_addr")
                                  : master_address(options.master_addr, "--master_addr");
    bool master_given = options.master_addr_given || extra_addr.has_value();
    std::vector<bool> local; // which hosts are this machine; their addresses are not kept
    {
        Placement placement = place_hosts(options, context, source);
        if (hosts.size() > 1 && !master_given) {
            spec.master_addr = implicit_master(options, context, hosts, placement);
        }
        local = std::move(placement.local);
    }
    spec.elastic = plan_elastic(elastic, source, spec, context);
    plan.elastic = spec.elastic;
    spec.max_restarts = elastic.max_restarts;
    if (spec.max_restarts && spec.form == LauncherForm::distributed_launch) {
        throw usage_error("--max_restarts needs PyTorch 1.9 or newer (torch.distributed.run)");
    }
    spec.module = options.module;
    spec.script = options.script;
    spec.script_args = options.script_args;

    plan.launcher_environment = with_launcher_defaults(context.environment);
    std::vector<EnvVar> launcher_environment = filter_environment(plan.launcher_environment);
    // Inside an allocation the launcher's Slurm task and node identity is its own: another node
    // told SLURM_NODEID=0 would take itself for the launcher's (PyTorch's and Lightning's Slurm
    // detection, submitit, DeepSpeed read them). -x still passes one on when asked.
    std::vector<std::string> withheld;
    std::erase_if(launcher_environment, [&withheld](const EnvVar& variable) {
        if (!is_slurm_identity_variable(variable.first)) {
            return false;
        }
        withheld.push_back(variable.first);
        return true;
    });
    EnvironmentChanges changes =
        plan_environment({context.env_files, options.exports, options.env_exclude},
                         plan.launcher_environment, launcher_environment);
    // One list that every node shares.
    job::SharedVector<EnvVar> environment = remote_environment(launcher_environment, changes);
    job::Preflight preflight{spec.master_addr, {}};
    std::vector<EnvVar> flag_environment;
    if (options.network_interface) {
        const NetworkInterfaces& interfaces = *options.network_interface;
        preflight.interfaces = interfaces.required;
        flag_environment.emplace_back("NCCL_SOCKET_IFNAME", interfaces.nccl);
        if (interfaces.gloo) {
            flag_environment.emplace_back("GLOO_SOCKET_IFNAME", *interfaces.gloo);
        }
    }
    plan.nodes.reserve(hosts.size()); // 100,000 nodes: no copy of the list while it grows
    for (size_t rank = 0; rank < hosts.size(); ++rank) {
        const Host& host = hosts[rank];
        spec.node_rank = static_cast<int>(rank);
        NodeCommand node;
        node.flag_environment = flag_environment;
        if (host.gpus) {
            spec.nproc_per_node = std::to_string(host.gpus->size());
            node.gpus = host.gpus;
            node.flag_environment.emplace_back(std::string(job::cuda_visible_devices),
                                               render_gpus(*host.gpus));
        }
        node.host = host.name;
        node.rank = spec.node_rank;
        node.local = local[rank]; // never with --launcher slurm
        LaunchCommand command = launch_command(spec);
        node.argv = std::move(command.argv);
        node.words = job::NodeWords{
            command.node_rank_word,
            master_given ? std::nullopt : std::optional<std::size_t>(command.master_addr_word)};
        node.environment = environment;
        // Only a node reached over SSH gets `environment`: a local one and srun's tasks start
        // from the launcher's own (srun sets each task's identity itself).
        if (!node.local && options.launcher == Launcher::ssh) {
            node.withheld_environment = withheld;
        }
        node.environment_changes = changes;
        node.preflight = preflight;
        node.preflight.gpus = gpus_needed(host.gpus, nproc);
        node.working_directory = context.working_directory;
        node.ssh_port = options.ssh_port;
        node.user = host.user;
        node.address = host.address;
        plan.nodes.push_back(std::move(node));
    }
    switch (options.launcher) {
    case Launcher::ssh:
        plan.launch = HostsLaunch{options.strict_host_key_checking,
                                  options.ssh_client.value_or(SshClient::libssh)};
        break;
    case Launcher::slurm:
        plan.launch = plan_srun(options, source.allocated, plan);
        break;
    }
    plan.log_dir = context.log_dir;
    plan.timings = {options.kill_grace, options.ssh_timeout};
    plan.report_resources =
        !find_variable(context.environment, "COLOSSALAI_TIMING").value_or("").empty();
    if (master_given) {
        check_master_address(spec.master_addr,
                             extra_addr ? "--extra_launch_args master_addr" : "--master_addr",
                             plan.nodes, plan);
    }
    return plan;
}

} // namespace colossalai::run
