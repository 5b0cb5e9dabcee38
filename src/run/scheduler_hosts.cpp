#include "colossalai/run/scheduler_hosts.hpp"

#include "colossalai/run/environment.hpp"
#include "colossalai/run/host_pattern.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <map>

namespace colossalai::run {

std::optional<SchedulerVariable>
find_scheduler_variable(const std::vector<std::string>& environment) {
    // SLURM_JOB_NODELIST is the job's; SLURM_NODELIST its older name, still set by srun.
    for (std::string_view name : {"SLURM_JOB_NODELIST", "SLURM_NODELIST"}) {
        if (std::optional<std::string> value = find_variable(environment, name)) {
            return SchedulerVariable{SchedulerKind::slurm, std::string(name), *value};
        }
    }
    if (std::optional<std::string> value = find_variable(environment, "PBS_NODEFILE")) {
        return SchedulerVariable{SchedulerKind::pbs, "PBS_NODEFILE", *value};
    }
    return std::nullopt;
}

void check_not_in_parallel_step(const std::vector<std::string>& environment) {
    std::optional<std::string> tasks = find_variable(environment, "SLURM_STEP_NUM_TASKS");
    if (!tasks || tasks == "1" || tasks == "0") {
        return;
    }
    std::string task = find_variable(environment, "SLURM_PROCID").value_or("?");
    throw usage_error("running as task {} of a Slurm step of {} tasks (SLURM_STEP_NUM_TASKS): "
                      "colossalai run starts every node itself; run it once (in salloc or an "
                      "sbatch script, not under srun), or give --host or --hostfile",
                      util::escape_for_message(task), util::escape_for_message(*tasks));
}

std::vector<Host> parse_pbs_nodefile(std::string_view text, std::string_view path) {
    std::string shown = util::escape_for_message(path);
    std::vector<Host> hosts;
    std::map<std::string, size_t> index;
    size_t number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++number;
        line = util::trim(line);
        if (line.empty()) {
            continue;
        }
        Host host = parse_host(line, fmt::format("PBS_NODEFILE {}:{}", shown, number));
        auto [it, inserted] = index.emplace(host.name, hosts.size());
        if (inserted) {
            if (hosts.size() == max_expanded_hosts) {
                throw usage_error("PBS_NODEFILE {}:{}: more than {} hosts", shown, number,
                                  max_expanded_hosts);
            }
            host.slots = 1;
            hosts.push_back(std::move(host));
        } else {
            ++*hosts[it->second].slots;
        }
    }
    if (hosts.empty()) {
        throw usage_error("PBS_NODEFILE {}: no hosts in the node file", shown);
    }
    return hosts;
}

std::vector<Host> scheduler_hosts(const SchedulerVariable& variable,
                                  const std::optional<std::string>& nodefile_text) {
    if (util::trim(variable.value).empty()) {
        throw usage_error("{} is set but empty: no hosts (unset it, or give --host or "
                          "--hostfile)",
                          variable.name);
    }
    if (variable.kind == SchedulerKind::slurm) {
        return parse_host_list(variable.value, variable.name);
    }
    if (!nodefile_text) {
        throw fatal_error("the node file {} was not read", variable.value);
    }
    return parse_pbs_nodefile(*nodefile_text, variable.value);
}

namespace {

std::string_view scheduler_job(SchedulerKind kind) {
    return kind == SchedulerKind::slurm ? "Slurm allocation" : "PBS job";
}

} // namespace

std::string describe_scheduler(const SchedulerVariable& variable) {
    return fmt::format("the {} ({})", scheduler_job(variable.kind), variable.name);
}

std::string scheduler_notice(const SchedulerVariable& variable, std::size_t used,
                             std::size_t available) {
    std::string count = used == available ? fmt::format("the {} host{}", used, used == 1 ? "" : "s")
                                          : fmt::format("{} of the {} hosts", used, available);
    return fmt::format("using {} of the {} ({}={})", count, scheduler_job(variable.kind),
                       variable.name, util::escape_for_message(variable.value));
}

bool is_slurm_identity_variable(std::string_view name) {
    // Sorted, for std::binary_search.
    static constexpr std::string_view names[] = {
        "SLURMD_NODENAME",          "SLURM_CPUS_ON_NODE",   "SLURM_CPU_FREQ_REQ",
        "SLURM_GPUS_ON_NODE",       "SLURM_GTIDS",          "SLURM_JOB_GPUS",
        "SLURM_LAUNCH_NODE_IPADDR", "SLURM_LOCALID",        "SLURM_NODEID",
        "SLURM_PRIO_PROCESS",       "SLURM_PROCID",         "SLURM_SHARDS_ON_NODE",
        "SLURM_SRUN_COMM_HOST",     "SLURM_SRUN_COMM_PORT", "SLURM_STEPID",
        "SLURM_TASK_PID",           "SLURM_TOPOLOGY_ADDR",  "SLURM_TOPOLOGY_ADDR_PATTERN",
    };
    static constexpr std::string_view prefixes[] = {"SLURM_CPU_BIND", "SLURM_MEM_BIND",
                                                    "SLURM_PTY_", "SLURM_STEP_"};
    return std::binary_search(std::begin(names), std::end(names), name) ||
           std::any_of(std::begin(prefixes), std::end(prefixes),
                       [name](std::string_view prefix) { return util::starts_with(name, prefix); });
}

std::string kubeflow_hostfile_path(const std::vector<std::string>& environment) {
    return find_variable(environment, "COLOSSALAI_KUBEFLOW_HOSTFILE").value_or("/etc/mpi/hostfile");
}

} // namespace colossalai::run
