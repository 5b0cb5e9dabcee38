#pragma once

#include "colossalai/run/plan.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::run {

// The value of `name` in `entries` (`NAME=value`, as in environ): the first one, as getenv
// finds it; nullopt when it is not set.
std::optional<std::string> find_variable(const std::vector<std::string>& entries,
                                         std::string_view name);

// True for a variable that describes this machine, this login or this shell rather than the
// job, and so must not be carried to the nodes: HOSTNAME, PWD, OLDPWD, SHLVL, `_`, SSH_*,
// DISPLAY; bash's read-only and per-shell ones (BASHOPTS, BASH_VERSINFO, BASHPID, EUID, PPID,
// SHELLOPTS, UID, ...); the login session's XDG_SESSION_* and XDG_RUNTIME_DIR; and the
// login's own identity (HOME, USER, LOGNAME, MAIL, SHELL), which a
// node's login sets itself (it may be another user or another home).
bool is_session_variable(std::string_view name);

// The launcher's environment (`NAME=value` strings, as in `environ`, the snapshot prepare()
// took) with the variables the launcher sets for its nodes unless the user did (to anything,
// even empty), appended: PYTHONUNBUFFERED=1, because node output reaches the launcher through
// a pipe or an SSH channel, where Python buffers stdout in 8 KiB blocks and training lines
// would arrive in bursts, or only at the end. Every node's environment starts from this one.
std::vector<std::string> with_launcher_defaults(std::vector<std::string> entries);

// True for a variable that Slurm sets for one task, one node or one step, so that inside an
// allocation the launcher's value describes the launcher's own place and no other node's (from
// the OUTPUT ENVIRONMENT VARIABLES of srun(1) and sbatch(1), Slurm 22.05):
// - per task: SLURM_PROCID, SLURM_LOCALID, SLURM_TASK_PID, SLURM_GTIDS, SLURM_PRIO_PROCESS,
//   SLURM_CPU_BIND*, SLURM_MEM_BIND*, SLURM_CPU_FREQ_REQ;
// - per node: SLURMD_NODENAME, SLURM_NODEID, SLURM_CPUS_ON_NODE, SLURM_GPUS_ON_NODE,
//   SLURM_SHARDS_ON_NODE, SLURM_JOB_GPUS, SLURM_TOPOLOGY_ADDR, SLURM_TOPOLOGY_ADDR_PATTERN;
// - per step (the batch step, an `srun --pty` shell): SLURM_STEP_*, SLURM_STEPID,
//   SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST, SLURM_SRUN_COMM_PORT, SLURM_PTY_*.
// The job's own (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NNODES, SLURM_NTASKS, SLURM_CLUSTER_NAME,
// SLURM_SUBMIT_DIR, ...) are the same on every node and are passed on.
bool is_slurm_identity_variable(std::string_view name);

// The launcher's environment (`NAME=value` strings, as in `environ`) as passed to every node:
// the variables whose name is an identifier and whose value is one line (no '\n' and no '\r'),
// without the session variables above. Sorted by name; for a name given twice the first wins
// (as getenv does).
std::vector<EnvVar> filter_environment(const std::vector<std::string>& entries);

} // namespace colossalai::run
