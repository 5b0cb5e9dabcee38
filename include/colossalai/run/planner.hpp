#pragma once

#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/env_control.hpp"
#include "colossalai/run/options.hpp"
#include "colossalai/run/plan.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colossalai::run {

// What make_plan needs to know about this machine, gathered by prepare() (or written by a
// test).
struct Context {
    std::vector<std::string> environment;     // `NAME=value`, as in environ
    std::string working_directory;            // absolute
    std::optional<std::string> python;        // the interpreter's sys.executable, if found
    std::optional<std::string> torch_version; // raw torch.__version__; nullopt: not found
    // The version of the interpreter whose PyTorch that is ("3.11.2"), as the Python lookup
    // read it (no process of its own); nullopt: unknown.
    std::optional<std::string> python_version;
    std::optional<std::string> hostfile_text; // the contents of options.hostfile
    // Kubeflow Trainer's hostfile (its MPI and DeepSpeed runtimes mount the job's hosts at
    // kubeflow_hostfile_path in the launcher pod): its path and contents, when it exists and
    // neither --host, --hostfile nor a batch job's allocation names the hosts.
    std::optional<std::pair<std::string, std::string>> kubeflow_hostfile;
    // The contents of the scheduler's node file (PBS_NODEFILE) when the hosts come from it.
    std::optional<std::string> nodefile_text;
    // The address an ssh-config alias (an address as written, no user part) leads to: its
    // HostName, as OpenSSH computes it; unset: the address itself.
    std::function<std::string(const std::string&)> host_name;
    // Which of these addresses (HostNames, no user part, no brackets) are this machine, in
    // order; unset: only loopback and unspecified addresses and `localhost`.
    std::function<std::vector<bool>(const std::vector<std::string>&)> find_local;
    // The address of this machine that the route to a remote host's address (a HostName)
    // leaves from, not a loopback one; nullopt when unknown.
    std::function<std::optional<std::string>(const std::string&)> source_towards;
    std::vector<std::string> warnings; // gathered while looking around (a broken interpreter)
    // The env files to read: those of --env-file, else the default .colossalai_env found.
    std::vector<EnvFileText> env_files;
    // --log-dir, made absolute and checked by prepare() (which creates it, when missing, once
    // the plan is made, unless for a dry run).
    std::optional<std::string> log_dir;
    // A fresh rendezvous id, for an elastic launch without --rdzv_id (a test's is fixed).
    std::function<std::string()> fresh_rdzv_id = run::fresh_rdzv_id;
};

// The plan for `colossalai run`, without any I/O, from options the cli has validated once
// (validate_options): hosts from --host, or the hostfile text, or the allocation of a
// batch scheduler found in the environment (SLURM_JOB_NODELIST, PBS_NODEFILE; a notice says
// so), with --include / --exclude / --num_nodes, or else the local machine (127.0.0.1); ranks in
// that order and --nnodes = the count (or, for an elastic launch, MIN:MAX with the rendezvous
// of plan_elastic: c10d on the master under Context::fresh_rdzv_id unless given; the count must
// lie in --nnodes' range); with several nodes and no explicit master address, the
// master is the first host's HostName (ssh config) or, when that is a loopback name of this
// machine and other nodes are remote, this machine's address on the route to the first remote
// node (a runtime error when there is none); the command form from the PyTorch version, and what
// that form of that version accepts (run/torch_forms.hpp), with a notice for a broken pairing of
// this machine's PyTorch and Python when a node runs here; the filtered environment and the working
// directory for every node. What differs between engines is asked of `engine`, the chosen
// row (engines::chosen: where else the hosts come from, whether it reaches them from this machine,
// the launch intent). Throws a usage error for any problem.
Plan make_plan(const Options& options, const Context& context, const EngineRow& engine);

// Gathers the Context with real I/O (reads the hostfile, environ, the current directory, finds
// the Python environment and its PyTorch version, detects local hosts with LocalHostDetector)
// and calls make_plan with `engine` (the chosen row). `host_name` maps an ssh-config alias
// to its HostName (the ssh module reads the config, above this one). `options` are validated
// already. Nothing is started or connected to; the only thing written is a missing --log-dir,
// created once the plan is made (not for a dry run).
Plan prepare(const Options& options, const EngineRow& engine,
             std::function<std::string(const std::string&)> host_name = {});

} // namespace colossalai::run
