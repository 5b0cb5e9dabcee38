#pragma once

#include "colossalai/job/host_key_policy.hpp"
#include "colossalai/run/elastic.hpp"
#include "colossalai/run/env_values.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc_value.hpp"
#include "colossalai/util/duration.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {

struct EngineRow; // run/engine_row.hpp

// `colossalai run` as the cli parsed it: every value typed where the cli read it (host lists,
// launcher arguments, the master's address and ports, -x and --env-exclude, interfaces,
// numbers, durations), so nothing below parses it again; an option not given is unset, and its
// default is the planner's. The checks across options are validate_options'. Names and
// defaults follow the original Python launcher.
// What --kill-grace accepts: 0 (SIGKILL at once) up to an hour.
inline constexpr util::DurationRange kill_grace_range{std::chrono::milliseconds(0),
                                                      std::chrono::hours(1)};

struct Options {
    std::optional<std::vector<Host>> host;      // -H / --host / -host: "h1,h2"
    std::optional<std::string> hostfile;        // --hostfile
    std::optional<HostSelection> include;       // --include "h1,h2" / "w0:0,1@w1"
    std::optional<HostSelection> exclude;       // --exclude "h1,h2" / "w1:0"
    std::optional<int> num_nodes;               // --num_nodes; unset or -1: all hosts
    std::optional<NprocPerNode> nproc_per_node; // --nproc_per_node N|auto|cpu|gpu
    std::optional<Port> master_port;            // --master_port; unset: default_master_port
    // --master_addr; unset: default_master_address(), or with several hosts node 0's HostName
    std::optional<MasterAddress> master_addr;
    // --extra_launch_args "a=1,b,c=2": the items passed on as they are, without master_addr and
    // master_port, which are `extra_master`
    std::optional<std::vector<LaunchArg>> extra_launch_args;
    ExtraMaster extra_master; // master_addr= / master_port= of --extra_launch_args
    // max_restarts= / rdzv_backend= / rdzv_endpoint= / rdzv_id= of --extra_launch_args
    ElasticOptions extra_elastic;
    // --nnodes, --max_restarts, --rdzv_backend, --rdzv_endpoint, --rdzv_id (torchrun's names)
    ElasticOptions elastic;
    std::chrono::milliseconds ssh_timeout{30000}; // --ssh-timeout SECONDS (connect, per host)
    std::chrono::milliseconds kill_grace{10000};  // --kill-grace SECONDS (TERM -> KILL)
    // --strict-host-key-checking MODE; nullopt: each node's ssh config decides (else yes)
    std::optional<job::HostKeyPolicy> strict_host_key_checking;
    bool dry_run = false; // --dry-run
    // --no-rendezvous-check: start the jobs without first checking that the nodes reach the
    // rendezvous (job/rendezvous_check.hpp), for sites that forbid listening before the job
    bool no_rendezvous_check = false;
    // --launcher NAME: the engine's row in the engines' table (engines::find), resolved once
    // by the cli; nullptr: not given, the table's first row (engines::chosen)
    const EngineRow* engine = nullptr;
    // The options that one engine owns (--ssh-port, --srun-args, ...), as given, whichever
    // engine is chosen: engines::validate refuses another engine's
    EngineOptions engine_options;
    // --network-interface "eth0,eth1" (NCCL's syntax)
    std::optional<NetworkInterfaces> network_interface;
    // --python PATH: nodes run `PATH -m torch.distributed.run` instead of torchrun
    std::optional<std::string> python;
    std::vector<EnvExport> exports;       // -x NAME=VALUE / -x NAME, in order
    std::vector<std::string> env_files;   // --env-file FILE, in order
    std::vector<EnvPattern> env_exclude;  // --env-exclude PATTERN[,PATTERN...]: each, in order
    std::optional<std::string> log_dir;   // --log-dir DIR
    std::optional<std::string> module;    // -m MODULE
    std::optional<std::string> script;    // SCRIPT.py
    std::vector<std::string> script_args; // everything after the script / module

    bool operator==(const Options&) const = default;
};

} // namespace colossalai::run
