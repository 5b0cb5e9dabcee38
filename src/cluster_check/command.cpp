#include "colossalai/cluster_check/command.hpp"

#include "colossalai/check/probe.hpp"
#include "colossalai/cluster_check/compare.hpp"
#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/cluster_check/report.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/ssh/remote_capture.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/ssh/worker_pool.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/ostream.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>

extern char** environ;

namespace colossalai::cluster_check {

namespace {

// A node's answer is a few KiB (version.py files, METADATA); more is no answer of ours.
constexpr std::size_t max_answer_bytes = 4 * 1024 * 1024;
// Connections set up at once, as `colossalai run` does.
constexpr std::size_t max_connecting = 32;

// The allocation's hosts as `colossalai run` takes them (a PBS node file's repeated lines are one
// host), and the line that says where they came from on `err`.
std::vector<run::Host> allocation_hosts(std::ostream& err) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        environment.emplace_back(*entry);
    }
    std::optional<run::SchedulerVariable> variable = run::find_scheduler_variable(environment);
    if (!variable) {
        throw usage_error("--allocation: not in a Slurm allocation or a PBS job (neither "
                          "SLURM_JOB_NODELIST nor PBS_NODEFILE is set)");
    }
    std::optional<std::string> nodefile;
    if (variable->kind == run::SchedulerKind::pbs) {
        nodefile = run::read_hostfile(variable->value, variable->name);
    }
    std::vector<run::Host> hosts = run::scheduler_hosts(*variable, nodefile);
    fmt::print(err, "colossalai: {}\n",
               run::scheduler_notice(*variable, hosts.size(), hosts.size()));
    return hosts;
}

std::vector<run::Host> hosts_of(const check::Options& options, std::ostream& err) {
    std::vector<std::string_view> given;
    for (const auto& [is_given, name] : {std::pair{options.host.has_value(), "--host"},
                                         {options.hostfile.has_value(), "--hostfile"},
                                         {options.allocation, "--allocation"}}) {
        if (is_given) {
            given.push_back(name);
        }
    }
    if (given.size() > 1) {
        throw usage_error("{} and {} cannot be used together", given[0], given[1]);
    }
    if (options.allocation) {
        return allocation_hosts(err);
    }
    if (options.host) {
        return run::parse_host_list(*options.host, "--host");
    }
    if (options.hostfile->empty()) {
        throw usage_error("--hostfile '': empty file name");
    }
    return run::parse_hostfile(run::read_hostfile(*options.hostfile), *options.hostfile);
}

struct Outcome {
    std::optional<check::Facts> facts;
    std::string error;
};

Outcome check_node(const job::NodeCommand& node, const std::string& input,
                   const ssh::ConnectSettings& settings, std::chrono::milliseconds run_timeout) {
    Outcome outcome;
    try {
        ssh::RemoteOutput output =
            ssh::capture_remote(node, input, settings, run_timeout, max_answer_bytes);
        Dump dump = parse_dump(output.out);
        if (dump.sections.empty()) {
            // Its first line is a section's: nothing of it ran.
            outcome.error = ssh::login_shell_ran_nothing(output.user, output.out + output.err,
                                                         output.exit_status, "the check");
            return outcome;
        }
        outcome.facts = facts_from_dump(dump);
    } catch (const std::exception& error) {
        outcome.error = error.what();
    }
    return outcome;
}

} // namespace

int execute(const check::Options& options, std::ostream& out, std::ostream& err) {
    std::vector<run::Host> hosts = hosts_of(options, err);
    check::ProbeSettings probe = check::read_settings(options, [](const std::string& name) {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    });
    ssh::ConnectSettings connect;
    connect.timeout = options.ssh_timeout;
    // Python, nvcc and nvidia-smi twice, each within the probe timeout, plus the round trips.
    std::chrono::milliseconds run_timeout = 4 * probe.timeout + connect.timeout;
    std::string input = node_input(options.python, probe.timeout);

    ssh::load_library(); // before any worker thread uses libssh
    std::vector<Outcome> outcomes(hosts.size());
    std::mutex mutex;
    std::condition_variable done;
    std::size_t left = hosts.size();
    {
        ssh::WorkerPool pool(max_connecting);
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            job::NodeCommand node;
            node.host = hosts[i].name;
            node.user = hosts[i].user;
            node.address = hosts[i].address;
            node.ssh_port = options.ssh_port;
            pool.submit([&, i, node = std::move(node)] {
                Outcome outcome = check_node(node, input, connect, run_timeout);
                std::lock_guard lock(mutex);
                outcomes[i] = std::move(outcome);
                --left;
                done.notify_one();
            });
        }
        std::unique_lock lock(mutex);
        done.wait(lock, [&] { return left == 0; });
    }

    std::vector<NodeFacts> nodes;
    std::vector<Unreachable> unreachable;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        if (outcomes[i].facts) {
            for (const std::string& warning : outcomes[i].facts->warnings) {
                fmt::print(err, "colossalai: warning: {}: {}\n", hosts[i].name,
                           util::escape_control_bytes(warning));
            }
            nodes.push_back({hosts[i].name, std::move(*outcomes[i].facts)});
        } else {
            unreachable.push_back({hosts[i].name, outcomes[i].error});
        }
    }
    err.flush();
    AcrossNodes across = compare_nodes(nodes);
    out << (options.json ? render_cluster_json(nodes, unreachable, across)
                         : render_cluster_text(nodes, unreachable, across));
    out.flush();
    return cluster_exit_status(nodes, unreachable, across);
}

} // namespace colossalai::cluster_check
