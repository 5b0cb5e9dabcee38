#pragma once

#include "colossalai/run/hosts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// Which batch scheduler's job the launcher runs in.
enum class SchedulerKind { slurm, pbs, lsf, sge };

// How the scheduler's variable gives the hosts.
enum class SchedulerFormat {
    host_list,   // SLURM_JOB_NODELIST: a compressed host list (`node[1-2],gpu[01-03]`)
    slot_lines,  // PBS_NODEFILE, LSB_DJOB_HOSTFILE: a file's path; one line per slot
    host_slots,  // LSB_MCPU_HOSTS: `hostA 4 hostB 4`, each host with its slot count
    pe_hostfile, // PE_HOSTFILE (SGE): a file's path; lines `host slots queue processors`
};

// The scheduler variable found in `environment` (`NAME=value` entries, as in environ): Slurm's
// first, then PBS's (PBS Pro, Torque, OpenPBS), LSF's (LSB_DJOB_HOSTFILE, else
// LSB_MCPU_HOSTS), SGE's; nullopt outside any allocation.
struct SchedulerVariable {
    SchedulerKind kind;
    SchedulerFormat format;
    std::string name;  // "SLURM_JOB_NODELIST", "PBS_NODEFILE", ...
    std::string value; // the node list, or the node file's path
};
std::optional<SchedulerVariable>
find_scheduler_variable(const std::vector<std::string>& environment);

// The variables find_scheduler_variable looks for, in its order, joined by ", ".
std::string scheduler_variable_names();

// True when the variable's value is the path of a file the caller reads for scheduler_hosts.
bool names_node_file(const SchedulerVariable& variable);

// Parses a node file with one host per line and per slot (PBS_NODEFILE, LSB_DJOB_HOSTFILE), so
// a host may repeat; `name` is the variable's. Hosts come deduplicated in the order of their
// first line, each with `slots` = its number of lines. Blank lines and surrounding whitespace
// are ignored. Throws a usage error `<name> <path>:<line>: ...` for a bad host or range, and for
// a file without hosts.
std::vector<Host> parse_slot_lines(std::string_view text, std::string_view name,
                                   std::string_view path);

// Parses LSB_MCPU_HOSTS (`hostA 4 hostB 2`): hosts in order, each with its slots; a host named
// twice adds its slots to its first entry. Throws a usage error `LSB_MCPU_HOSTS: ...` for an odd
// number of words, a count that is no positive number, a bad host, or no hosts.
std::vector<Host> parse_lsf_host_slots(std::string_view value);

// Parses SGE's PE_HOSTFILE: a line per host, `host slots queue processor-range`; only the first
// two words count. A host on several lines (one per queue) adds its slots. Throws a usage error
// `PE_HOSTFILE <path>:<line>: ...` for a bad host or slot count, and for a file without hosts.
std::vector<Host> parse_pe_hostfile(std::string_view text, std::string_view path);

// The hosts of the allocation that `variable` names: the Slurm node list expanded natively (no
// scontrol), LSB_MCPU_HOSTS's hosts, or a node file's hosts (`nodefile_text`, read by the
// caller when names_node_file). Throws a usage error for an empty or bad list, or a node file
// without hosts.
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
