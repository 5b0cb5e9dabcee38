#include "commands.hpp"

#include "colossalai/launch/execute.hpp"
#include "colossalai/run/dry_run.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/ssh/client_config.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/ostream.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace colossalai::cli {

namespace {

std::optional<int> to_int(std::string_view text) {
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

int to_port(const std::string& text, std::string_view option) {
    std::optional<int> port = to_int(text);
    if (!port) {
        throw usage_error("{} '{}': not a port number (1..65535)", option,
                          util::escape_for_message(text));
    }
    return *port;
}

} // namespace

std::vector<std::string> split_run_command_line(const std::vector<std::string>& args,
                                                RunArguments& arguments) {
    // The subcommand is the first word that is not an option (the top level has flags only).
    auto command =
        std::find_if(args.begin() + (args.empty() ? 0 : 1), args.end(),
                     [](const std::string& word) { return !util::starts_with(word, "-"); });
    if (command == args.end() || *command != "run") {
        return args;
    }
    arguments.words = split_run_arguments({command + 1, args.end()});
    std::vector<std::string> for_cli11(args.begin(), command + 1);
    if (arguments.words.help) {
        for_cli11.emplace_back("--help");
    }
    return for_cli11;
}

CLI::App* add_run_command(CLI::App& app, RunArguments& arguments) {
    CLI::App* command = app.add_subcommand(
        "run", "Launch distributed training: torchrun on every node, locally, over SSH or "
               "through Slurm's srun.");
    command->footer(
        "Option parsing ends at the script (or at -m MODULE): every later word goes to the\n"
        "script unchanged, even if it looks like a launcher option. A literal -- may precede\n"
        "the script. Long options may be written with '-' for '_' (--nproc-per-node).");
    // The values come from the pre-scan: these registrations feed --help only.
    auto add = [&](const std::string& name, const std::string& type, const std::string& help) {
        return command->add_option(name, arguments.help_only, help)->type_name(type);
    };
    add("-H,--host", "HOSTS", "Comma-separated hosts: h1,h2 (also -host)");
    add("--hostfile", "FILE", "File with one host per line (# comments)");
    add("--include", "HOSTS", "Use only these hosts of the hostfile, in order");
    add("--exclude", "HOSTS", "Use every host of the hostfile but these");
    add("--num_nodes", "N", "Use only the first N hosts (after --include/--exclude); -1: all")
        ->default_str("-1");
    add("--nproc_per_node", "N",
        "Processes per node: a number (usually of GPUs), or auto/cpu/gpu for torchrun; "
        "default: the hosts' slots");
    add("--master_port", "PORT", "Port of the rendezvous on node 0")->default_str("29500");
    add("--master_addr", "ADDR", "Address of node 0 (with several nodes: the first host)")
        ->default_str("127.0.0.1");
    add("--extra_launch_args", "ARGS", "More launcher options: a=1,b,c=2 -> --a=1 --b --c=2");
    add("--ssh-port", "PORT", "SSH port for every host (else ~/.ssh/config, else 22)");
    add("--ssh-timeout", "SECONDS", "SSH connect timeout per host")->default_str("30");
    add("--strict-host-key-checking", "MODE",
        "Unknown or changed SSH host keys: yes (refuse), accept-new (learn new keys), no "
        "(learn new keys, warn of changed ones), ask (= yes); else ~/.ssh/config, else yes");
    add("--kill-grace", "SECONDS", "Time between TERM and KILL when stopping a node")
        ->default_str("10");
    add("--launcher", "ssh|slurm",
        "How the nodes are started: ssh (local children and SSH), or slurm (one srun step)")
        ->default_str("ssh");
    add("--srun-args", "ARGS",
        "With --launcher slurm: more srun options, as a shell would split them "
        "(\"--partition gpu --time 1:00:00\")");
    add("--network-interface", "IFACE[,IFACE...]",
        "Network interfaces for NCCL and Gloo on every node (NCCL_SOCKET_IFNAME, "
        "GLOO_SOCKET_IFNAME; ^ and = as NCCL reads them); each node checks they exist");
    add("--python", "PATH",
        "Nodes run PATH -m torch.distributed.run instead of torchrun (a conda or venv Python)");
    add("-x", "NAME[=VALUE]",
        "Set a variable on every node, or pass on the launcher's value of NAME (repeatable; "
        "wins over --env-file and --env-exclude)");
    add("--env-file", "FILE",
        "NAME=VALUE lines (# comments) to set on every node (repeatable); default: "
        "./.colossalai_env, else ~/.colossalai_env, when present");
    add("--env-exclude", "PATTERNS",
        "Do not pass these of the launcher's variables: NAME or PREFIX*, comma-separated; a "
        "node keeps its own value");
    add("--log-dir", "DIR",
        "Also write each node's stdout and stderr to DIR/RANK-HOST.out and .err on this "
        "machine");
    command->add_flag(
        "--dry-run", arguments.help_only_flag,
        "Print each node's host, rank, command and the variables that -x, --env-file and "
        "--env-exclude set or drop; start nothing");
    add("-m", "MODULE", "Run a module (python -m) instead of a script");
    command->add_option("SCRIPT", arguments.help_only, "The training script (.py)");
    command->add_option("ARGS", arguments.help_only_args, "Passed to the script unchanged");
    return command;
}

run::Options finish_run_command(const RunArguments& arguments) {
    const RunWords& words = arguments.words;
    run::Options options;
    for (const auto& [name, value] : words.values) { // in order: the last of a repeat wins
        if (name == "--host") {
            options.host = value;
        } else if (name == "--hostfile") {
            options.hostfile = value;
        } else if (name == "--include") {
            options.include = value;
        } else if (name == "--exclude") {
            options.exclude = value;
        } else if (name == "--num_nodes") {
            options.num_nodes = to_int(value);
            if (!options.num_nodes) {
                throw usage_error("--num_nodes '{}': not a positive number of nodes (or -1 for "
                                  "all)",
                                  util::escape_for_message(value));
            }
        } else if (name == "--nproc_per_node") {
            options.nproc_per_node = value;
        } else if (name == "--master_port") {
            options.master_port = to_port(value, name);
            options.master_port_given = true;
        } else if (name == "--master_addr") {
            options.master_addr = value;
            options.master_addr_given = true;
        } else if (name == "--extra_launch_args") {
            options.extra_launch_args = value;
        } else if (name == "--ssh-port") {
            options.ssh_port = to_port(value, name);
        } else if (name == "--ssh-timeout") {
            options.ssh_timeout = util::parse_seconds(value, name, ssh::connect_timeout_range);
        } else if (name == "--strict-host-key-checking") {
            if (!ssh::parse_host_key_policy(value)) {
                throw usage_error("--strict-host-key-checking '{}': use yes, accept-new, no or "
                                  "ask",
                                  util::escape_for_message(value));
            }
            options.strict_host_key_checking = value;
        } else if (name == "--launcher") {
            if (value != "ssh" && value != "slurm") {
                throw usage_error("--launcher '{}': expected ssh or slurm",
                                  util::escape_for_message(value));
            }
            options.launcher = value == "ssh" ? run::Launcher::ssh : run::Launcher::slurm;
        } else if (name == "--srun-args") {
            options.srun_args = value;
        } else if (name == "--network-interface") {
            options.network_interface = value;
        } else if (name == "--python") {
            options.python = value;
        } else if (name == "-x") {
            options.exports.push_back(value);
        } else if (name == "--env-file") {
            options.env_files.push_back(value);
        } else if (name == "--env-exclude") {
            options.env_exclude.push_back(value);
        } else if (name == "--log-dir") {
            options.log_dir = value;
        } else if (name == "--kill-grace") {
            options.kill_grace = util::parse_seconds(value, name, run::kill_grace_range);
        }
    }
    options.dry_run = words.dry_run;
    options.module = words.module;
    options.script = words.script;
    options.script_args = words.script_args;
    run::validate_options(options);
    return options;
}

int execute_run_command(const run::Options& options, std::ostream& out, std::ostream& err) {
    // The master address other nodes use is an alias's HostName: the ssh config is read here,
    // above run, which cannot include ssh.
    run::Plan plan = run::prepare(options, ssh::ConfiguredHostNames());
    for (const std::string& notice : plan.notices) {
        fmt::print(err, "colossalai: {}\n", notice);
    }
    for (const std::string& warning : plan.warnings) {
        fmt::print(err, "colossalai: warning: {}\n", warning);
    }
    if (options.dry_run) {
        out << run::render_dry_run(plan);
        return 0;
    }
    // The launcher writes to the file descriptors itself, after what the streams hold.
    out.flush();
    err.flush();
    return launch::execute(plan);
}

} // namespace colossalai::cli
