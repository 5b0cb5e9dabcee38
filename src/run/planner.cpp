#include "colossalai/run/planner.hpp"

#include "colossalai/run/environment.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/launch_command.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/run/selection.hpp"
#include "colossalai/run/srun_command.hpp"
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
};

HostSource final_hosts(const Options& options, const Context& context) {
    if (options.host) {
        return {parse_host_list(*options.host, "--host"), "--host", std::nullopt};
    }
    if (options.hostfile) {
        if (!context.hostfile_text) {
            throw runtime_error("the hostfile {} was not read", *options.hostfile);
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
        if (options.nproc_per_node) {
            // A node file counts CPUs or MPI ranks per host, not GPUs: its counts are only a
            // default for --nproc_per_node, never a contradiction of it.
            for (Host& host : pool) {
                host.slots.reset();
            }
        }
        std::vector<Host> hosts = select_hosts(pool, options, source);
        std::string notice = scheduler_notice(*variable, hosts.size(), pool.size());
        return {std::move(hosts), source, notice};
    }
    for (const auto& [given, name] : {std::pair{options.include.has_value(), "--include"},
                                      {options.exclude.has_value(), "--exclude"},
                                      {options.num_nodes.has_value(), "--num_nodes"}}) {
        if (given) {
            throw usage_error("{} needs --hostfile (or the hosts of a Slurm or PBS job)", name);
        }
    }
    if (options.launcher == Launcher::slurm) {
        throw usage_error("--launcher slurm needs the nodes: --host or --hostfile, or run it "
                          "inside a Slurm allocation (salloc, sbatch)");
    }
    return {{parse_host("127.0.0.1", "default host")}, "the default host", std::nullopt};
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

bool is_local(const Context& context, const Host& host) {
    if (host.user) {
        return false;
    }
    if (context.is_local) {
        return context.is_local(host.address);
    }
    return is_loopback(host.address) || classify_address(host.address) == AddressKind::unspecified;
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
void plan_srun(const Options& options, Plan& plan) {
    for (NodeCommand& node : plan.nodes) {
        if (node.user) {
            throw usage_error("--launcher slurm: host '{}' names a user; Slurm runs every task "
                              "as the user who starts srun",
                              node.host);
        }
        node.local = false;
    }
    plan.srun_command =
        build_srun_command(plan.nodes, options.srun_args ? parse_srun_args(*options.srun_args)
                                                         : std::vector<std::string>{});
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
    spec.nproc_per_node = resolve_nproc_per_node(options.nproc_per_node, hosts, source.source,
                                                 spec.form, plan.torch_version);
    spec.nnodes = static_cast<int>(hosts.size());
    if (options.extra_launch_args) {
        spec.extra = parse_extra_launch_args(*options.extra_launch_args);
    }
    std::optional<std::string> extra_addr = take_value(spec.extra, "master_addr");
    std::optional<std::string> extra_port = take_value(spec.extra, "master_port");
    spec.master_port = extra_port.value_or(std::to_string(options.master_port));
    spec.master_addr = extra_addr ? master_address(*extra_addr, "--extra_launch_args master_addr")
                                  : master_address(options.master_addr, "--master_addr");
    bool master_given = options.master_addr_given || extra_addr.has_value();
    if (hosts.size() > 1 && !master_given) {
        spec.master_addr = hosts.front().address;
    }
    spec.module = options.module;
    spec.script = options.script;
    spec.script_args = options.script_args;

    std::vector<EnvVar> environment = filter_environment(context.environment);
    job::Preflight preflight{spec.master_addr, {}};
    std::vector<EnvVar> flag_environment;
    if (options.network_interface) {
        NetworkInterfaces interfaces = parse_network_interfaces(*options.network_interface);
        preflight.interfaces = interfaces.required;
        flag_environment.emplace_back("NCCL_SOCKET_IFNAME", interfaces.nccl);
        if (interfaces.gloo) {
            flag_environment.emplace_back("GLOO_SOCKET_IFNAME", *interfaces.gloo);
        }
    }
    for (size_t rank = 0; rank < hosts.size(); ++rank) {
        const Host& host = hosts[rank];
        spec.node_rank = static_cast<int>(rank);
        NodeCommand node;
        node.host = host.name;
        node.rank = spec.node_rank;
        node.local = is_local(context, host);
        node.argv = build_launch_command(spec);
        node.environment = environment;
        node.flag_environment = flag_environment;
        node.preflight = preflight;
        node.working_directory = context.working_directory;
        node.ssh_port = options.ssh_port;
        node.user = host.user;
        node.address = host.address;
        plan.nodes.push_back(std::move(node));
    }
    if (options.launcher == Launcher::slurm) {
        plan_srun(options, plan);
    }
    if (master_given) {
        check_master_address(spec.master_addr,
                             extra_addr ? "--extra_launch_args master_addr" : "--master_addr",
                             plan.nodes, plan);
    }
    return plan;
}

} // namespace colossalai::run
