#pragma once

#include "colossalai/run/hosts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// Where a batch scheduler says the job's hosts are.
enum class SchedulerKind {
    slurm, // SLURM_JOB_NODELIST: a compressed host list (`node[1-2],gpu[01-03]`)
    pbs,   // PBS_NODEFILE: the path of a file with one line per slot (PBS Pro, Torque, OpenPBS)
};

// The scheduler variable found in `environment` (`NAME=value` entries, as in environ), Slurm
// first; nullopt outside any allocation.
struct SchedulerVariable {
    SchedulerKind kind;
    std::string name;  // "SLURM_JOB_NODELIST", "PBS_NODEFILE"
    std::string value; // the node list, or the node file's path
};
std::optional<SchedulerVariable>
find_scheduler_variable(const std::vector<std::string>& environment);

// Parses a PBS node file: one host per line and per slot, so a host may repeat. Hosts come
// deduplicated in the order of their first line, each with `slots` = its number of lines.
// Blank lines and surrounding whitespace are ignored. Throws a usage error
// `PBS_NODEFILE <path>:<line>: ...` for a bad host or range, and for a file without hosts.
std::vector<Host> parse_pbs_nodefile(std::string_view text, std::string_view path);

// The hosts of the allocation that `variable` names: the Slurm node list expanded natively (no
// scontrol), or the PBS node file's hosts (`nodefile_text`, read by the caller). Throws a usage
// error for an empty or bad list, or a node file without hosts.
std::vector<Host> scheduler_hosts(const SchedulerVariable& variable,
                                  const std::optional<std::string>& nodefile_text);

// Refuses to take a Slurm allocation's hosts from inside a step of several tasks
// (`srun -N2 colossalai run ...`): every task would start every node, N times over. Throws a
// usage error saying to run the launcher once (salloc, sbatch) or to give the hosts.
void check_not_in_parallel_step(const std::vector<std::string>& environment);

// How messages name the allocation: "the Slurm allocation (SLURM_JOB_NODELIST)".
std::string describe_scheduler(const SchedulerVariable& variable);

// The one line that says where the hosts came from, `used` of the allocation's `available`:
// "using the 2 hosts of the Slurm allocation (SLURM_JOB_NODELIST=node[1-2])".
std::string scheduler_notice(const SchedulerVariable& variable, std::size_t used,
                             std::size_t available);

// A Slurm allocation's identity variables: true for a variable that Slurm sets for one task, one
// node or one step, so that inside an allocation the launcher's value describes the launcher's own
// place and no other node's (from the OUTPUT ENVIRONMENT VARIABLES of srun(1) and sbatch(1),
// Slurm 22.05):
// - per task: SLURM_PROCID, SLURM_LOCALID, SLURM_TASK_PID, SLURM_GTIDS, SLURM_PRIO_PROCESS,
//   SLURM_CPU_BIND*, SLURM_MEM_BIND*, SLURM_CPU_FREQ_REQ;
// - per node: SLURMD_NODENAME, SLURM_NODEID, SLURM_CPUS_ON_NODE, SLURM_GPUS_ON_NODE,
//   SLURM_SHARDS_ON_NODE, SLURM_JOB_GPUS, SLURM_TOPOLOGY_ADDR, SLURM_TOPOLOGY_ADDR_PATTERN;
// - per step (the batch step, an `srun --pty` shell): SLURM_STEP_*, SLURM_STEPID,
//   SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST, SLURM_SRUN_COMM_PORT, SLURM_PTY_*.
// The job's own (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NNODES, SLURM_NTASKS, SLURM_CLUSTER_NAME,
// SLURM_SUBMIT_DIR, ...) are the same on every node and are passed on.
bool is_slurm_identity_variable(std::string_view name);

// Where Kubeflow Trainer mounts the job's hostfile in the launcher pod, as read from
// `environment`: /etc/mpi/hostfile, or COLOSSALAI_KUBEFLOW_HOSTFILE when set (for the tests: a
// file of their own, or empty for none).
std::string kubeflow_hostfile_path(const std::vector<std::string>& environment);

} // namespace colossalai::run
