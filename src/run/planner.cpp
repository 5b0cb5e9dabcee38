#include "colossalai/run/planner.hpp"

#include "plan_hosts.hpp"

#include "colossalai/run/env_control.hpp"
#include "colossalai/run/environment.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/launch_command.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::run {

namespace {

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

// Refuses what the form of the PyTorch in `spec` does not accept (torch_forms.hpp).
void require(const LaunchSpec& spec, TorchFeature feature, std::string_view what) {
    require_feature(feature, what, spec.form, spec.torch);
}

// The one-line notice of a PyTorch and Python pairing whose torchrun stops before any worker
// starts (torch_forms.hpp), with the least change that avoids it; nothing is changed for the
// user. The versions are this machine's: the notice goes with a node that runs here (a remote
// node's own versions are its own; srun's tasks are never local).
void add_broken_pair_notice(const Context& context, const LaunchSpec& spec, Plan& plan) {
    if (std::none_of(plan.nodes.begin(), plan.nodes.end(),
                     [](const NodeCommand& node) { return node.local; })) {
        return;
    }
    std::optional<util::Version> python;
    if (context.python_version) {
        python = util::parse_version(*context.python_version);
    }
    if (std::optional<std::string> notice =
            broken_pair_notice(spec.form, spec.torch, python, spec.extra)) {
        plan.notices.push_back(std::move(*notice));
    }
}

// A remote node reads its own PyTorch and Python pair in its preflight and the launcher names the
// node in the notice (a local node's versions are the launcher's: add_broken_pair_notice).
void add_node_pair_checks(const LaunchSpec& spec, Plan& plan) {
    std::optional<job::TorchPairCheck> check = node_pair_check(spec.form, spec.extra);
    for (NodeCommand& node : plan.nodes) {
        if (!node.local) {
            node.preflight.torch_pair = check;
        }
    }
}

// The master every node's torchrun meets at, and the option that named it.
struct Master {
    MasterAddress address;
    Port port;
    std::optional<std::string_view> given_by; // nullopt: implied (node 0, or this machine)
};

// --extra_launch_args' master_addr / master_port, else the options', else the defaults; with
// several hosts and no address given, node 0's (implicit_master). validate_options refused
// both ways at once.
Master plan_master(const Options& options, const Context& context, const HostSource& source,
                   const Placement& placement) {
    Master master{
        default_master_address(),
        options.extra_master.port.value_or(options.master_port.value_or(default_master_port)),
        std::nullopt};
    if (options.extra_master.address) {
        master.address = *options.extra_master.address;
        master.given_by = "--extra_launch_args master_addr";
    } else if (options.master_addr) {
        master.address = *options.master_addr;
        master.given_by = "--master_addr";
    } else if (source.hosts.size() > 1) {
        master.address = implicit_master(context, source.hosts, placement);
    }
    return master;
}

// Warns about an explicit loopback master address when some node runs on another machine.
void check_master_address(const Master& master, const std::vector<NodeCommand>& nodes, Plan& plan) {
    auto remote = std::find_if(nodes.begin(), nodes.end(),
                               [](const NodeCommand& node) { return !node.local; });
    if (!master.given_by || nodes.size() < 2 || remote == nodes.end() ||
        !is_loopback(master.address.host)) {
        return;
    }
    plan.warnings.push_back(fmt::format("{} '{}' is a loopback address: the nodes on other "
                                        "machines (such as '{}') cannot reach it",
                                        *master.given_by, master.address.host, remote->host));
}

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
    require(spec, TorchFeature::elastic, "an elastic launch (--nnodes MIN:MAX, --rdzv_*)");
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
        plan.endpoint = {spec.master_addr.host, spec.master_port.number};
    }
    plan.id = given.rdzv_id ? *given.rdzv_id : context.fresh_rdzv_id();
    plan.max_restarts = given.max_restarts;
    return plan;
}

// A launch with GPU indices: torch.distributed.launch before 1.9 computes the world size as
// nproc_per_node * nnodes, which is wrong when the nodes' counts differ (torch_forms.hpp); and
// the launcher's own CUDA_VISIBLE_DEVICES gives way to each node's selection (DeepSpeed ignores
// it alike).
void check_gpu_selection(const std::vector<Host>& hosts, const LaunchSpec& spec, Plan& plan,
                         const Context& context) {
    auto differs = std::find_if(hosts.begin(), hosts.end(), [&](const Host& host) {
        return host.gpus->size() != hosts.front().gpus->size();
    });
    if (differs != hosts.end()) {
        require(spec, TorchFeature::uneven_nproc,
                fmt::format("a launch whose nodes run different numbers of processes ('{}' {}, "
                            "'{}' {})",
                            hosts.front().name, hosts.front().gpus->size(), differs->name,
                            differs->gpus->size()));
    }
    if (std::optional<std::string> own =
            find_variable(context.environment, job::cuda_visible_devices)) {
        plan.warnings.push_back(fmt::format(
            "the launcher's {}={} is not passed on: each node's GPUs are those --include or "
            "--exclude select (indices of the node's own GPUs)",
            job::cuda_visible_devices, util::escape_for_message(*own)));
    }
}

// The notices of where the hosts and the variables come from, when the user did not say.
void add_source_notices(const Options& options, const Context& context, const HostSource& source,
                        Plan& plan) {
    if (source.notice) {
        plan.notices.push_back(*source.notice);
    }
    if (options.env_files.empty() && !context.env_files.empty()) {
        plan.notices.push_back(fmt::format("setting the variables of {} on every node",
                                           util::escape_for_message(context.env_files[0].path)));
    }
}

// How the nodes start torch: the form the PyTorch version allows, and the interpreter of the
// two `-m torch...` forms (--python forces one of them). The form's gates come after, each from
// the table (torch_forms.hpp).
LaunchSpec torch_launcher(const Options& options, const Context& context, Plan& plan) {
    LaunchSpec spec;
    spec.torch = torch_version(context, plan);
    spec.form = launcher_form(spec.torch);
    spec.python = context.python.value_or("python3");
    if (options.python) {
        // The interpreter the nodes run: `-m torch.distributed.run` works where no torchrun
        // script is on the node's PATH.
        spec.python = *options.python;
        if (spec.form == LauncherForm::torchrun) {
            spec.form = LauncherForm::distributed_run;
        }
    }
    if (options.module) {
        require(spec, TorchFeature::module, "-m");
    }
    return spec;
}

// Every node's process count; nullopt with GPU indices in --include/--exclude, where each node
// runs one process per GPU it selects (select_hosts gave every host its GPUs), so the counts
// may differ from node to node.
std::optional<NprocPerNode> plan_nproc(const Options& options, const Context& context,
                                       const HostSource& source, const LaunchSpec& spec,
                                       Plan& plan) {
    const std::vector<Host>& hosts = source.hosts;
    if (!hosts.empty() && hosts.front().gpus.has_value()) {
        check_gpu_selection(hosts, spec, plan, context);
        return std::nullopt;
    }
    if (options.nproc_per_node && std::holds_alternative<SymbolicNproc>(*options.nproc_per_node)) {
        require(spec, TorchFeature::symbolic_nproc,
                "--nproc_per_node " + to_string(*options.nproc_per_node));
    }
    return resolve_nproc_per_node(options.nproc_per_node, hosts, source.source);
}

// The words of torchrun that every node shares: the extra launch args (without those folded
// into `elastic`), the master, the elastic rendezvous, --max_restarts, the script or module.
void plan_launch_words(const Options& options, const Context& context, const HostSource& source,
                       const Master& master, LaunchSpec& spec, Plan& plan) {
    spec.nnodes = static_cast<int>(source.hosts.size());
    if (options.extra_launch_args) {
        spec.extra = *options.extra_launch_args;
    }
    ElasticOptions elastic = given_elastic_options(options); // written once, below
    spec.master_addr = master.address;
    spec.master_port = master.port;
    spec.elastic = plan_elastic(elastic, source, spec, context);
    plan.elastic = spec.elastic;
    spec.max_restarts = elastic.max_restarts;
    if (spec.max_restarts) {
        require(spec, TorchFeature::max_restarts, "--max_restarts");
    }
    require_extra_args(spec.extra, spec.form, spec.torch);
    spec.module = options.module;
    spec.script = options.script;
    spec.script_args = options.script_args;
}

// What every node's environment is made of (NodeCommand's fields of the same names).
struct NodeEnvironment {
    job::SharedVector<EnvVar> environment; // one list that every node shares
    EnvironmentChanges changes;
    std::vector<std::string> withheld;
    std::vector<EnvVar> flag_environment;
    std::vector<std::string> interfaces; // --network-interface's, each node's preflight checks
};

// The launcher's environment (plan.launcher_environment), and what the nodes get of it with -x,
// --env-file, --env-exclude and --network-interface.
NodeEnvironment plan_node_environment(const Options& options, const Context& context, Plan& plan) {
    plan.launcher_environment = with_launcher_defaults(context.environment);
    std::vector<EnvVar> launcher_environment = filter_environment(plan.launcher_environment);
    NodeEnvironment result;
    // Inside an allocation the launcher's Slurm task and node identity is its own: another node
    // told SLURM_NODEID=0 would take itself for the launcher's (PyTorch's and Lightning's Slurm
    // detection, submitit, DeepSpeed read them). -x still passes one on when asked.
    std::erase_if(launcher_environment, [&result](const EnvVar& variable) {
        if (!is_slurm_identity_variable(variable.first)) {
            return false;
        }
        result.withheld.push_back(variable.first);
        return true;
    });
    result.changes = plan_environment({context.env_files, options.exports, options.env_exclude},
                                      plan.launcher_environment, launcher_environment);
    result.environment = remote_environment(launcher_environment, result.changes);
    if (options.network_interface) {
        const NetworkInterfaces& interfaces = *options.network_interface;
        result.interfaces = interfaces.required;
        result.flag_environment.emplace_back("NCCL_SOCKET_IFNAME", interfaces.nccl);
        if (interfaces.gloo) {
            result.flag_environment.emplace_back("GLOO_SOCKET_IFNAME", *interfaces.gloo);
        }
    }
    return result;
}

// The script each node's preflight checks: none with -m, nor when torchrun runs it as a program
// without Python (--extra_launch_args no_python), where it is a command found as torchrun's exec
// finds it.
std::optional<std::string> checked_script(const LaunchSpec& spec) {
    bool no_python = std::any_of(spec.extra.begin(), spec.extra.end(), [](const LaunchArg& arg) {
        return arg.name == "no_python" || arg.name == "no-python";
    });
    if (spec.module || no_python) {
        return std::nullopt;
    }
    return spec.script;
}

// One node per host, in rank order: its command from `spec` (with its rank, and its process
// count: `nproc`, or its GPUs' count), its environment, its preflight, where and how it runs.
// Takes the hosts: each node first takes its host's own fields and the list is freed before the
// nodes' commands are made, so that the hosts (176 bytes each) and the finished nodes are never
// held at once (100,000 hosts: 17.6 MB of the peak).
void add_nodes(const Context& context, const EngineRow& engine, std::vector<Host> hosts,
               const std::vector<bool>& local, const std::optional<NprocPerNode>& nproc,
               const Master& master, const NodeEnvironment& environment, LaunchSpec& spec,
               Plan& plan) {
    plan.nodes.reserve(hosts.size()); // 100,000 nodes: no copy of the list while it grows
    for (size_t rank = 0; rank < hosts.size(); ++rank) {
        Host& host = hosts[rank];
        NodeCommand& node = plan.nodes.emplace_back();
        node.host = std::move(host.name);
        node.rank = static_cast<int>(rank);
        node.local = local[rank]; // only where the engine reaches the hosts from here
        node.gpus = std::move(host.gpus);
        node.user = std::move(host.user);
        node.address = std::move(host.address);
    }
    hosts = std::vector<Host>();
    if (nproc) {
        spec.nproc_per_node = *nproc;
    }
    job::Preflight preflight{master.address.host, environment.interfaces, {}, checked_script(spec)};
    // With one process count for all, the nodes' commands differ only in the rank word: made
    // once, each node's copy gets its own (100,000 nodes: the shared words not formatted again).
    std::optional<LaunchCommand> common;
    for (NodeCommand& node : plan.nodes) {
        spec.node_rank = node.rank;
        node.flag_environment = environment.flag_environment;
        if (node.gpus) {
            spec.nproc_per_node = static_cast<int>(node.gpus->size());
            node.flag_environment.emplace_back(std::string(job::cuda_visible_devices),
                                               render_gpus(*node.gpus));
        }
        LaunchCommand command;
        if (nproc && !node.gpus) {
            if (!common) {
                common = launch_command(spec);
            }
            command = *common;
            command.argv[command.node_rank_word] = node_rank_option(node.rank);
        } else {
            command = launch_command(spec);
        }
        node.argv = std::move(command.argv);
        node.words = job::NodeWords{
            command.node_rank_word,
            master.given_by ? std::nullopt : std::optional<std::size_t>(command.master_addr_word)};
        node.environment = environment.environment;
        // Only a node on another machine that the engine reaches itself loses the launcher's
        // job identity: a local one starts from the launcher's own, and srun sets each task's.
        if (!node.local && engine.withholds_job_identity) {
            node.withheld_environment = environment.withheld;
        }
        node.environment_changes = environment.changes;
        node.preflight = preflight;
        node.preflight.gpus = gpus_needed(node.gpus, nproc);
        node.working_directory = context.working_directory;
    }
}

// The rendezvous check (job/rendezvous_check.hpp). None with --no-rendezvous-check, nor for a
// single node: its torchrun serves its own store and joins it on the same machine, so nothing
// crosses a network, and a port in use fails at once with torch's own error rather than a hang.
// The node that listens is the one torch's rendezvous runs on: node 0 (static, or a c10d
// endpoint at the master address), else the node a c10d endpoint names; an endpoint outside the
// job (etcd, or a host of its own) is only connected to.
std::optional<job::RendezvousPlan> plan_rendezvous(const Options& options, const LaunchSpec& spec,
                                                   const Plan& plan) {
    if (options.no_rendezvous_check || plan.nodes.size() < 2) {
        return std::nullopt;
    }
    job::RendezvousPlan check;
    check.python = spec.python;
    check.token = job::fresh_rendezvous_token();
    check.address = spec.master_addr.host;
    check.port = spec.master_port.number;
    check.listener = 0;
    check.nodes = plan.nodes.size();
    if (spec.elastic) {
        const RdzvEndpoint& endpoint = spec.elastic->endpoint;
        check.address = endpoint.host;
        check.port = endpoint.port;
        check.listener = std::nullopt;
        bool served_by_a_node = spec.elastic->backend == RdzvBackend::c10d ||
                                spec.elastic->backend == RdzvBackend::static_tcp;
        if (served_by_a_node && endpoint.host == spec.master_addr.host) {
            check.listener = 0;
        } else if (served_by_a_node) {
            auto node = std::find_if(
                plan.nodes.begin(), plan.nodes.end(), [&endpoint](const NodeCommand& n) {
                    return n.host == endpoint.host || n.address == endpoint.host;
                });
            if (node != plan.nodes.end()) {
                check.listener = static_cast<std::size_t>(node->rank);
            }
        }
    }
    // More than one machine: the remote nodes, and this one when it runs a node.
    std::size_t remote = static_cast<std::size_t>(std::count_if(
        plan.nodes.begin(), plan.nodes.end(), [](const NodeCommand& n) { return !n.local; }));
    check.own_name = remote + (remote < plan.nodes.size() ? 1 : 0) > 1;
    check.interface_given =
        options.network_interface && options.network_interface->gloo.has_value();
    return check;
}

} // namespace

Plan make_plan(const Options& options, const Context& context, const EngineRow& engine) {
    HostSource source = final_hosts(options, context, engine);
    Plan plan;
    plan.warnings = context.warnings;
    add_source_notices(options, context, source, plan);
    LaunchSpec spec = torch_launcher(options, context, plan);
    std::optional<NprocPerNode> nproc = plan_nproc(options, context, source, spec, plan);
    Placement placement = place_hosts(context, source, engine);
    Master master = plan_master(options, context, source, placement);
    placement.addresses = std::vector<std::string>(); // the master is chosen: no longer needed
    plan_launch_words(options, context, source, master, spec, plan);
    NodeEnvironment environment = plan_node_environment(options, context, plan);
    add_nodes(context, engine, std::move(source.hosts), placement.local, nproc, master, environment,
              spec, plan);
    plan.launch = engine.launch(options, source.allocated, plan);
    add_broken_pair_notice(context, spec, plan);
    add_node_pair_checks(spec, plan);
    plan.rendezvous = plan_rendezvous(options, spec, plan);
    plan.log_dir = context.log_dir;
    plan.timings = {options.kill_grace, options.ssh_timeout};
    plan.report_resources =
        !find_variable(context.environment, "COLOSSALAI_TIMING").value_or("").empty();
    check_master_address(master, plan.nodes, plan);
    return plan;
}

} // namespace colossalai::run
