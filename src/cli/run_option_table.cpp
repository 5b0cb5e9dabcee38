#include "run_option_table.hpp"

#include "shared_options.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/job/host_key_policy.hpp"
#include "colossalai/run/elastic.hpp"
#include "colossalai/run/env_values.hpp"
#include "colossalai/run/extra_args.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/master.hpp"
#include "colossalai/run/network_interfaces.hpp"
#include "colossalai/run/nproc.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <optional>

namespace colossalai::cli {

namespace {

using run::Options;

// A repeatable option: every value, in order.
template <std::vector<std::string> Options::*field>
void append(Options& options, std::string_view, const std::string& value) {
    (options.*field).push_back(value);
}

// A host list: --host.
template <std::optional<std::vector<run::Host>> Options::*field>
void set_hosts(Options& options, std::string_view name, const std::string& value) {
    options.*field = run::parse_host_list(value, name);
}

// A selection of hosts and GPUs: --include, --exclude.
template <std::optional<run::HostSelection> Options::*field>
void set_selection(Options& options, std::string_view name, const std::string& value) {
    options.*field = run::parse_host_selection(value, name);
}

void set_nproc_per_node(Options& options, std::string_view name, const std::string& value) {
    // Missing is decided by the planner: hostfile slots may give it.
    options.nproc_per_node = run::parse_nproc_per_node(value);
    if (!options.nproc_per_node) {
        throw usage_error("{} '{}': not a positive integer (or auto, cpu, gpu)", name,
                          util::escape_for_message(value));
    }
}

void set_extra_launch_args(Options& options, std::string_view, const std::string& value) {
    std::vector<run::LaunchArg> args = run::parse_extra_launch_args(value);
    options.extra_master = run::take_extra_master(args);
    options.extra_elastic = run::take_extra_elastic(args);
    options.extra_launch_args = std::move(args);
}

void set_network_interface(Options& options, std::string_view, const std::string& value) {
    options.network_interface = run::parse_network_interfaces(value);
}

void set_num_nodes(Options& options, std::string_view name, const std::string& value) {
    options.num_nodes = util::parse_integer<int>(value);
    if (!options.num_nodes) {
        throw usage_error("{} '{}': not a positive number of nodes (or -1 for all)", name,
                          util::escape_for_message(value));
    }
}

void set_master_port(Options& options, std::string_view name, const std::string& value) {
    options.master_port = run::parse_port(value, name);
}

void set_master_addr(Options& options, std::string_view name, const std::string& value) {
    options.master_addr = run::parse_master_address(value, name);
}

void add_export(Options& options, std::string_view, const std::string& value) {
    options.exports.push_back(run::parse_env_export(value));
}

void add_env_exclude(Options& options, std::string_view, const std::string& value) {
    std::vector<run::EnvPattern> patterns = run::parse_env_patterns(value);
    options.env_exclude.insert(options.env_exclude.end(), patterns.begin(), patterns.end());
}

void set_kill_grace(Options& options, std::string_view name, const std::string& value) {
    options.kill_grace = util::parse_seconds(value, name, run::kill_grace_range);
}

void set_host_key_checking(Options& options, std::string_view name, const std::string& value) {
    options.strict_host_key_checking = job::parse_host_key_policy(value);
    if (!options.strict_host_key_checking) {
        throw usage_error("{} '{}': use yes, accept-new, no or ask", name,
                          util::escape_for_message(value));
    }
}

// --nnodes, --max_restarts, --rdzv_*: typed by run/elastic.hpp's parsers.
template <auto field, auto parse>
void set_elastic(Options& options, std::string_view name, const std::string& value) {
    options.elastic.*field = parse(value, name);
}

void set_ssh_timeout(Options& options, std::string_view name, const std::string& value) {
    options.ssh_timeout = util::parse_seconds(value, name, ssh::connect_timeout_range);
}

// The options that are not one engine's, in --help order; the engines' own are placed among them
// (with_engine_options).
std::span<const RunOption> general_options() {
    static const RunOption general[] = {
        help_option<Options>(),
        shared::host_option<Options>("HOSTS", "Comma-separated hosts: h1,h2 (also -host)",
                                     set_hosts<&Options::host>),
        shared::hostfile_option<Options>("FILE", "File with one host per line (# comments)"),
        {.long_name = "--include",
         .value_name = "HOSTS",
         .help = "Use only these hosts of the hostfile, in order; GPUs as DeepSpeed: w0:0,1@w1",
         .apply = set_selection<&Options::include>},
        {.long_name = "--exclude",
         .value_name = "HOSTS",
         .help = "Use every host of the hostfile but these; GPUs as DeepSpeed: w1:0",
         .apply = set_selection<&Options::exclude>},
        {.long_name = "--num_nodes",
         .value_name = "N",
         .default_shown = "-1",
         .help = "Use only the first N hosts (after --include/--exclude); -1: all",
         .apply = set_num_nodes},
        {.long_name = "--nproc_per_node",
         .value_name = "N",
         .help = "Processes per node: a number (usually of GPUs), or auto/cpu/gpu for torchrun; "
                 "default: the hosts' slots",
         .apply = set_nproc_per_node},
        {.long_name = "--master_port",
         .value_name = "PORT",
         .default_shown = "29500",
         .help = "Port of the rendezvous on node 0",
         .apply = set_master_port},
        {.long_name = "--master_addr",
         .value_name = "ADDR",
         .default_shown = "127.0.0.1",
         .help = "Address of node 0 as every node reaches it (several nodes: the first host's "
                 "HostName)",
         .apply = set_master_addr},
        {.long_name = "--nnodes",
         .value_name = "N|MIN:MAX",
         .help = "Nodes the job runs on (torchrun's): MIN:MAX makes it elastic (c10d rendezvous on "
                 "the master; nodes may leave while MIN remain); default: the number of hosts",
         .apply = set_elastic<&run::ElasticOptions::nnodes, run::parse_node_range>},
        {.long_name = "--max_restarts",
         .value_name = "N",
         .help = "How often torchrun restarts the workers of a failed or changed job",
         .apply = set_elastic<&run::ElasticOptions::max_restarts, run::parse_max_restarts>},
        {.long_name = "--rdzv_backend",
         .value_name = "BACKEND",
         .help = "torchrun's rendezvous: c10d (an elastic launch's default), static, etcd, etcd-v2",
         .apply = set_elastic<&run::ElasticOptions::rdzv_backend, run::parse_rdzv_backend>},
        {.long_name = "--rdzv_endpoint",
         .value_name = "HOST:PORT",
         .help = "Where the rendezvous is served; default: master_addr:master_port",
         .apply = set_elastic<&run::ElasticOptions::rdzv_endpoint, run::parse_rdzv_endpoint>},
        {.long_name = "--rdzv_id",
         .value_name = "ID",
         .help = "The job's rendezvous id; default: a fresh one per launch",
         .apply = set_elastic<&run::ElasticOptions::rdzv_id, run::parse_rdzv_id>},
        {.long_name = "--extra_launch_args",
         .value_name = "ARGS",
         .help = "More launcher options: a=1,b,c=2 -> --a=1 --b --c=2",
         .apply = set_extra_launch_args},
        // run's own, which every engine's plan carries (check's is the ssh row's).
        {.long_name = "--ssh-timeout",
         .value_name = "SECONDS",
         .default_shown = "30",
         .help = "SSH connect timeout per host",
         .apply = set_ssh_timeout},
        {.long_name = "--strict-host-key-checking",
         .value_name = "MODE",
         .help =
             "Unknown or changed SSH host keys: yes (refuse), accept-new (learn new keys), no "
             "(learn new keys, warn of changed ones), ask (= yes); else ~/.ssh/config, else yes",
         .apply = set_host_key_checking},
        {.long_name = "--kill-grace",
         .value_name = "SECONDS",
         .default_shown = "10",
         .help = "Time between TERM and KILL when stopping a node",
         .apply = set_kill_grace},
        shared::launcher_option<Options>("How the nodes are started"),
        {.long_name = "--network-interface",
         .value_name = "IFACE[,IFACE...]",
         .help = "Network interfaces for NCCL and Gloo on every node (NCCL_SOCKET_IFNAME, "
                 "GLOO_SOCKET_IFNAME; ^ and = as NCCL reads them); each node checks they exist",
         .apply = set_network_interface},
        {.long_name = "--no-rendezvous-check",
         .help = "Start the jobs without first checking that every node reaches the master's port "
                 "(for sites that forbid listening before the job)",
         .apply = set_flag<Options, &Options::no_rendezvous_check>},
        shared::python_option<Options>(
            "Nodes run PATH -m torch.distributed.run instead of torchrun (a conda or venv "
            "Python)"),
        {.short_name = "-x",
         .value_name = "NAME[=VALUE]",
         .help =
             "Set a variable on every node, or pass on the launcher's value of NAME (repeatable; "
             "wins over --env-file and --env-exclude)",
         .apply = add_export},
        {.long_name = "--env-file",
         .value_name = "FILE",
         .help = "NAME=VALUE lines (# comments) to set on every node (repeatable); default: "
                 "./.colossalai_env, else ~/.colossalai_env, when present",
         .apply = append<&Options::env_files>},
        {.long_name = "--env-exclude",
         .value_name = "PATTERNS",
         .help =
             "Do not pass these of the launcher's variables: NAME or PREFIX*, comma-separated; a "
             "node keeps its own value",
         .apply = add_env_exclude},
        {.long_name = "--log-dir",
         .value_name = "DIR",
         .help = "Also write each node's stdout and stderr to DIR/RANK-HOST.out and .err on this "
                 "machine",
         .apply = keep_text<Options, &Options::log_dir>},
        {.long_name = "--dry-run",
         .help = "Print each node's host, rank, command and the variables that -x, --env-file and "
                 "--env-exclude set or drop; start nothing",
         .apply = set_flag<Options, &Options::dry_run>},
        {.short_name = "-m",
         .value_name = "MODULE",
         .help = "Run a module (python -m) instead of a script",
         .role = OptionRole::module},
    };
    return general;
}

} // namespace

std::span<const RunOption> run_option_table() {
    static const std::vector<RunOption> table =
        with_engine_options<Options>(general_options(), engines::table());
    return table;
}

const RunOption* find_long_option(std::string_view name) {
    if (!util::starts_with(name, "--")) {
        return nullptr;
    }
    std::span<const RunOption> table = run_option_table();
    auto it = std::find_if(table.begin(), table.end(), [&](const RunOption& option) {
        return !option.long_name.empty() &&
               run::same_option(name.substr(2), option.long_name.substr(2));
    });
    return it == table.end() ? nullptr : &*it;
}

} // namespace colossalai::cli
