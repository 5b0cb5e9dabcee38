#include "colossalai/slurm/engine.hpp"

#include "colossalai/run/host_pattern.hpp"
#include "colossalai/slurm/node_check.hpp"
#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_args.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

namespace colossalai::slurm {

namespace {

// Every node a task of the one srun step.
class SrunLaunchTransports : public job::LaunchTransports {
public:
    SrunLaunchTransports(const run::Plan& plan, const run::SrunLaunch& launch,
                         job::LaunchHooks hooks)
        : m_srun(plan, launch, std::move(hooks.notice)) {}

    job::Transport& transport_for(const job::NodeCommand&) override { return m_srun; }

private:
    SlurmTransport m_srun;
};

// Its own part of the engine options (run::Options::engine_options,
// run::CheckOptions::engine_options).
std::optional<std::vector<std::string>>& srun_args(run::EngineOptions& options) {
    return std::get<run::SrunLaunch::Given>(options).srun_args;
}
const std::optional<std::vector<std::string>>& srun_args(const run::EngineOptions& options) {
    return std::get<run::SrunLaunch::Given>(options).srun_args;
}

constexpr run::EngineOption slurm_options[] = {
    {.name = "--srun-args",
     .run = {.value_name = "ARGS",
             .help = "With --launcher slurm: more srun options, as a shell would split them "
                     "(\"--partition gpu --time 1:00:00\")",
             .follows = "--launcher"},
     .check = {.value_name = "ARGS",
               .help = "With --launcher slurm: more srun options, as a shell would split them",
               .follows = "--launcher"},
     .apply = [](run::EngineOptions& options, std::string_view,
                 const std::string& value) { srun_args(options) = parse_srun_args(value); },
     .given = [](const run::EngineOptions& options) { return srun_args(options).has_value(); }},
};

std::string refuse_for_slurm(std::string_view option, std::string_view owner) {
    return fmt::format("{} is for --launcher {} (srun starts the nodes' jobs)", option, owner);
}

// srun starts one command on every node: no node can have GPUs of its own.
void validate_for_slurm(const run::Options& options) {
    const std::optional<run::HostSelection>& selection =
        options.include ? options.include : options.exclude;
    if (selection && selection->names_gpus()) {
        throw usage_error("--launcher slurm cannot use GPU indices in {}: srun starts one command "
                          "on every node (--srun-args '--gpus-per-node=N' selects GPUs there)",
                          options.include ? "--include" : "--exclude");
    }
}

// --num_nodes N without hosts (nor --include/--exclude), outside an allocation: srun allocates
// any N nodes, and each task names its node when it starts.
std::optional<run::EngineHosts> srun_allocation(const run::Options& options) {
    if (!options.num_nodes || *options.num_nodes <= 0 || options.include || options.exclude) {
        return std::nullopt;
    }
    if (static_cast<std::size_t>(*options.num_nodes) > run::max_expanded_hosts) {
        throw usage_error("--num_nodes '{}': more than {} nodes", *options.num_nodes,
                          run::max_expanded_hosts);
    }
    run::EngineHosts allocation;
    allocation.source = "srun's allocation";
    for (int rank = 0; rank < *options.num_nodes; ++rank) {
        run::Host host;
        host.name = fmt::format("(node {})", rank);
        host.address = host.name;
        allocation.hosts.push_back(std::move(host));
    }
    allocation.notice =
        fmt::format("srun allocates {} node{}; each is named by its task when it starts",
                    allocation.hosts.size(), allocation.hosts.size() == 1 ? "" : "s");
    return allocation;
}

void needs_hosts_for_slurm() {
    throw usage_error("--launcher slurm needs the nodes: --num_nodes N (srun allocates them), "
                      "--host or --hostfile, or run it inside a Slurm allocation (salloc, "
                      "sbatch)");
}

// A host with a user part (`shown` as the message names it): every task runs as the user who
// starts srun.
[[noreturn]] void refuse_host_user(std::string_view shown) {
    throw usage_error("--launcher slurm: host '{}' names a user; Slurm runs every task as the "
                      "user who starts srun",
                      shown);
}

// Every node is a task of one srun step, none is started locally or over SSH, and every task
// runs as the user who starts srun.
run::LaunchIntent srun_launch(const run::Options& options, bool allocated, run::Plan& plan) {
    for (job::NodeCommand& node : plan.nodes) {
        if (node.user) {
            refuse_host_user(node.host);
        }
        node.local = false;
    }
    return run::SrunLaunch{
        .srun_args = srun_args(options.engine_options).value_or(std::vector<std::string>{}),
        .allocates = allocated};
}

std::string refuse_for_slurm_check(std::span<const std::string_view> options,
                                   std::string_view owner) {
    return fmt::format("{} {} for --launcher {} (srun starts the checks)",
                       fmt::join(options, " and "), options.size() == 1 ? "is" : "are", owner);
}

// srun reaches the nodes of a Slurm allocation only (not a PBS job's).
void check_slurm_allocation(const std::optional<run::SchedulerVariable>& variable) {
    if (!variable || variable->kind != run::SchedulerKind::slurm) {
        throw usage_error("--launcher slurm needs the nodes: --host or --hostfile, or run it "
                          "inside a Slurm allocation (salloc, sbatch)");
    }
}

void check_slurm_host(const run::Host& host) {
    if (host.user) {
        refuse_host_user(util::escape_for_message(host.name));
    }
}

constexpr run::EngineRow slurm_row{.name = "slurm",
                                   .options = slurm_options,
                                   .run_gloss = "one srun step",
                                   .check_gloss = "one srun step; alone, inside an allocation: "
                                                  "the allocation's nodes",
                                   .refuse = refuse_for_slurm,
                                   .validate = validate_for_slurm,
                                   .own_hosts = srun_allocation,
                                   .needs_hosts = needs_hosts_for_slurm,
                                   .launch = srun_launch,
                                   .check_nodes = check_nodes,
                                   .check_refuse = refuse_for_slurm_check,
                                   .check_alone_checks_allocation = true,
                                   .check_allocation = check_slurm_allocation,
                                   .check_host = check_slurm_host};

} // namespace

const run::EngineRow& engine_row() {
    return slurm_row;
}

std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::SrunLaunch& launch, job::LaunchHooks hooks) {
    return std::make_unique<SrunLaunchTransports>(plan, launch, std::move(hooks));
}

job::RendezvousWay rendezvous_way(const run::Plan& plan) {
    return plan.rendezvous ? job::RendezvousWay::transports : job::RendezvousWay::none;
}

std::string dry_run_header(const run::Plan& plan, const run::SrunLaunch& launch) {
    return fmt::format("srun (one task per node; {} runs its node's command below):\n    {}\n",
                       "/bin/sh -c SCRIPT", util::shell_join(srun_command(plan, launch)));
}

std::string dry_run_transport() {
    return "slurm";
}

} // namespace colossalai::slurm
