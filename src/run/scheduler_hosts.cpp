#include "colossalai/run/scheduler_hosts.hpp"

#include "colossalai/run/environment.hpp"
#include "colossalai/run/host_pattern.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <map>

namespace colossalai::run {

namespace {

// Where each scheduler says the job's hosts are, in the order they are looked for. Slurm's
// SLURM_NODELIST is the older name of SLURM_JOB_NODELIST, still set by srun; LSF sets
// LSB_DJOB_HOSTFILE since 9.1, LSB_MCPU_HOSTS always.
struct SchedulerSource {
    SchedulerKind kind;
    SchedulerFormat format;
    std::string_view name;
};
constexpr SchedulerSource scheduler_sources[] = {
    {SchedulerKind::slurm, SchedulerFormat::host_list, "SLURM_JOB_NODELIST"},
    {SchedulerKind::slurm, SchedulerFormat::host_list, "SLURM_NODELIST"},
    {SchedulerKind::pbs, SchedulerFormat::slot_lines, "PBS_NODEFILE"},
    {SchedulerKind::lsf, SchedulerFormat::slot_lines, "LSB_DJOB_HOSTFILE"},
    {SchedulerKind::lsf, SchedulerFormat::host_slots, "LSB_MCPU_HOSTS"},
    {SchedulerKind::sge, SchedulerFormat::pe_hostfile, "PE_HOSTFILE"},
};

// Hosts deduplicated in the order of their first mention, the slots of every mention summed.
class HostTally {
public:
    // `where` names the mention in a message.
    void add(std::string_view name, int slots, const std::string& where) {
        Host host = parse_host(name, where);
        auto [it, inserted] = m_index.emplace(host.name, m_hosts.size());
        if (inserted) {
            if (m_hosts.size() == max_expanded_hosts) {
                throw usage_error("{}: more than {} hosts", where, max_expanded_hosts);
            }
            host.slots = slots;
            m_hosts.push_back(std::move(host));
        } else {
            *m_hosts[it->second].slots += slots;
        }
    }
    // Throws `<what>: no hosts <where>` when nothing was added.
    std::vector<Host> take(std::string_view what, std::string_view none) {
        if (m_hosts.empty()) {
            throw usage_error("{}: no hosts {}", what, none);
        }
        return std::move(m_hosts);
    }

private:
    std::vector<Host> m_hosts;
    std::map<std::string, size_t> m_index;
};

// A slot count as the schedulers write it: a positive decimal, at most a million.
int parse_slot_count(std::string_view text, const std::string& where) {
    if (std::optional<int> slots = util::parse_integer<int>(text, {1, 1'000'000})) {
        return *slots;
    }
    throw usage_error("{}: slot count '{}' is not a number from 1 to 1000000", where,
                      util::escape_for_message(text));
}

} // namespace

std::optional<SchedulerVariable>
find_scheduler_variable(const std::vector<std::string>& environment) {
    for (const SchedulerSource& source : scheduler_sources) {
        if (std::optional<std::string> value = find_variable(environment, source.name)) {
            return SchedulerVariable{source.kind, source.format, std::string(source.name), *value};
        }
    }
    return std::nullopt;
}

std::string scheduler_variable_names() {
    std::string names;
    for (const SchedulerSource& source : scheduler_sources) {
        names += names.empty() ? "" : ", ";
        names += source.name;
    }
    return names;
}

bool names_node_file(const SchedulerVariable& variable) {
    return variable.format == SchedulerFormat::slot_lines ||
           variable.format == SchedulerFormat::pe_hostfile;
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

std::vector<Host> parse_slot_lines(std::string_view text, std::string_view name,
                                   std::string_view path) {
    std::string shown = util::escape_for_message(path);
    HostTally tally;
    size_t number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++number;
        line = util::trim(line);
        if (!line.empty()) {
            tally.add(line, 1, fmt::format("{} {}:{}", name, shown, number));
        }
    }
    return tally.take(fmt::format("{} {}", name, shown), "in the node file");
}

std::vector<Host> parse_lsf_host_slots(std::string_view value) {
    std::vector<std::string_view> words = util::split_blank_words(value);
    if (words.size() % 2 != 0) {
        throw usage_error("LSB_MCPU_HOSTS: '{}' has no slot count (expected 'host count' pairs)",
                          util::escape_for_message(words.back()));
    }
    HostTally tally;
    for (size_t i = 0; i < words.size(); i += 2) {
        std::string where = "LSB_MCPU_HOSTS";
        tally.add(words[i], parse_slot_count(words[i + 1], where), where);
    }
    return tally.take("LSB_MCPU_HOSTS", "in the variable");
}

std::vector<Host> parse_pe_hostfile(std::string_view text, std::string_view path) {
    std::string shown = util::escape_for_message(path);
    HostTally tally;
    size_t number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++number;
        std::vector<std::string_view> words = util::split_blank_words(line);
        if (words.empty()) {
            continue;
        }
        std::string where = fmt::format("PE_HOSTFILE {}:{}", shown, number);
        if (words.size() < 2) {
            throw usage_error("{}: '{}' has no slot count (expected 'host slots queue "
                              "processors')",
                              where, util::escape_for_message(words[0]));
        }
        tally.add(words[0], parse_slot_count(words[1], where), where);
    }
    return tally.take(fmt::format("PE_HOSTFILE {}", shown), "in the node file");
}

std::vector<Host> scheduler_hosts(const SchedulerVariable& variable,
                                  const std::optional<std::string>& nodefile_text) {
    if (util::trim(variable.value).empty()) {
        throw usage_error("{} is set but empty: no hosts (unset it, or give --host or "
                          "--hostfile)",
                          variable.name);
    }
    switch (variable.format) {
    case SchedulerFormat::host_list:
        return parse_host_list(variable.value, variable.name);
    case SchedulerFormat::host_slots:
        return parse_lsf_host_slots(variable.value);
    case SchedulerFormat::slot_lines:
    case SchedulerFormat::pe_hostfile:
        break;
    }
    if (!nodefile_text) {
        throw fatal_error("the node file {} was not read", variable.value);
    }
    return variable.format == SchedulerFormat::slot_lines
               ? parse_slot_lines(*nodefile_text, variable.name, variable.value)
               : parse_pe_hostfile(*nodefile_text, variable.value);
}

namespace {

std::string_view scheduler_job(SchedulerKind kind) {
    switch (kind) {
    case SchedulerKind::slurm:
        return "Slurm allocation";
    case SchedulerKind::pbs:
        return "PBS job";
    case SchedulerKind::lsf:
        return "LSF job";
    case SchedulerKind::sge:
        return "SGE job";
    }
    return "job";
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
