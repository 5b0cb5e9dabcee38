#include "colossalai/cluster_check/command.hpp"

#include "colossalai/check/probe.hpp"
#include "colossalai/cluster_check/compare.hpp"
#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/cluster_check/report.hpp"
#include "colossalai/exec/capture.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/slurm/srun_probe.hpp"
#include "colossalai/ssh/remote_capture.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/ssh/worker_pool.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/signal_name.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/ostream.h>

#include <cstdlib>

extern char** environ;

namespace colossalai::cluster_check {

namespace {

// A node's answer is a few KiB (version.py files, METADATA); more is no answer of ours.
constexpr std::size_t max_answer_bytes = 4 * 1024 * 1024;
// Connections set up at once, as `colossalai run` does.
constexpr std::size_t max_connecting = 32;

// The allocation's hosts as `colossalai run` takes them (a PBS node file's repeated lines are one
// host), and the line that says where they came from on `err`. --launcher slurm takes a Slurm
// allocation's only: srun cannot reach a PBS job's nodes.
std::vector<run::Host> allocation_hosts(check::Launcher launcher, std::ostream& err) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        environment.emplace_back(*entry);
    }
    std::optional<run::SchedulerVariable> variable = run::find_scheduler_variable(environment);
    if (launcher == check::Launcher::slurm &&
        (!variable || variable->kind != run::SchedulerKind::slurm)) {
        throw usage_error("--launcher slurm needs the nodes: --host or --hostfile, or run it "
                          "inside a Slurm allocation (salloc, sbatch)");
    }
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

std::vector<run::Host> named_hosts(const check::Options& options, std::ostream& err) {
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
    if (given.empty() || options.allocation) { // nothing named: --launcher slurm's allocation
        return allocation_hosts(options.launcher, err);
    }
    if (options.host) {
        return run::parse_host_list(*options.host, "--host");
    }
    if (options.hostfile->empty()) {
        throw usage_error("--hostfile '': empty file name");
    }
    return run::parse_hostfile(run::read_hostfile(*options.hostfile), *options.hostfile);
}

std::vector<run::Host> hosts_of(const check::Options& options, std::ostream& err) {
    std::vector<run::Host> hosts = named_hosts(options, err);
    if (options.launcher == check::Launcher::slurm) {
        for (const run::Host& host : hosts) {
            if (host.user) {
                throw usage_error("--launcher slurm: host '{}' names a user; Slurm runs every "
                                  "task as the user who starts srun",
                                  util::escape_for_message(host.name));
            }
        }
    }
    return hosts;
}

struct NodeAnswer {
    std::optional<check::Facts> facts;
    std::string error;
};

// A node's answer (the node program's output) as its facts; `error` when nothing of the program
// ran there.
NodeAnswer read_answer(std::string_view answer, std::string error) {
    NodeAnswer outcome;
    Dump dump = parse_dump(answer);
    if (dump.sections.empty()) {
        outcome.error = std::move(error);
        return outcome;
    }
    outcome.facts = facts_from_dump(dump);
    return outcome;
}

NodeAnswer check_node(const job::NodeCommand& node, const std::string& input,
                      const ssh::ConnectSettings& settings, std::chrono::milliseconds run_timeout) {
    try {
        ssh::RemoteOutput output =
            ssh::capture_remote(node, input, settings, run_timeout, max_answer_bytes);
        // No section: its first line is a section's, so nothing of it ran.
        return read_answer(output.out,
                           ssh::login_shell_ran_nothing(output.user, output.out + output.err,
                                                        output.exit_status, "the check"));
    } catch (const std::exception& error) {
        NodeAnswer outcome;
        outcome.error = error.what();
        return outcome;
    }
}

// Every node at once over SSH, at most max_connecting connecting.
std::vector<NodeAnswer> check_over_ssh(const check::Options& options,
                                       const std::vector<run::Host>& hosts,
                                       const check::ProbeSettings& probe) {
    ssh::ConnectSettings connect;
    connect.timeout = options.ssh_timeout;
    // Python, nvcc and nvidia-smi twice, each within the probe timeout, plus the round trips.
    std::chrono::milliseconds run_timeout = 4 * probe.timeout + connect.timeout;
    std::string input = node_input(options.python, probe.timeout);

    ssh::load_library(); // before any worker thread uses libssh
    std::vector<NodeAnswer> outcomes(hosts.size());
    {
        ssh::WorkerPool pool(max_connecting);
        for (std::size_t i = 0; i < hosts.size(); ++i) {
            job::NodeCommand node;
            node.host = hosts[i].name;
            node.user = hosts[i].user;
            node.address = hosts[i].address;
            node.ssh_port = options.ssh_port;
            pool.submit([&, i, node = std::move(node)] {
                NodeAnswer outcome = check_node(node, input, connect, run_timeout);
                outcomes[i] = std::move(outcome); // its own element: no other task touches it
            });
        }
        pool.wait_idle(); // every node answered (the pool's lock orders their writes before)
    }
    return outcomes;
}

// Every node as one task of one srun step (slurm/srun_probe.hpp), each node's answer read from
// its task's lines. A node whose task gave no answer is not checked, with what srun did.
std::vector<NodeAnswer> check_through_srun(const check::Options& options,
                                           const std::vector<run::Host>& hosts,
                                           const check::ProbeSettings& probe) {
    std::vector<std::string> names;
    for (const run::Host& host : hosts) {
        names.push_back(host.name);
    }
    // The root directory: the check reads nothing of the launcher's, whose directory may not
    // exist on the nodes.
    std::vector<job::NodeCommand> nodes =
        slurm::probe_nodes(names, node_argv(options.python, probe.timeout), "/");
    // The probes' time, plus as long again as an SSH check allows for its connections: srun
    // sets up the step and may wait for the allocation's CPUs; then srun is stopped.
    std::chrono::milliseconds timeout = 4 * probe.timeout + options.ssh_timeout;
    // srun runs in a process group of its own: Ctrl-C and the deadline send it SIGTERM, on which
    // srun cancels its step (a SIGKILLed srun leaves the step running until its tasks end).
    exec::StopCapturesOnSignal stop_captures;
    exec::CaptureResult srun =
        exec::capture(slurm::build_srun_command(nodes, options.srun_args), timeout, std::nullopt,
                      max_answer_bytes * hosts.size(),
                      {.stderr_to = exec::Stderr::merge, .stop = exec::Stop::terminate});
    std::vector<NodeAnswer> outcomes(hosts.size());
    if (!srun.started) {
        for (NodeAnswer& outcome : outcomes) {
            outcome.error = fmt::format("cannot run srun: {}", srun.error);
        }
        return outcomes;
    }
    slurm::ProbeOutput output = slurm::read_probe_output(srun.output, nodes);
    // How srun ended, with its last line, for the nodes that did not answer.
    std::string srun_end;
    if (srun.timed_out) {
        srun_end = fmt::format("no answer within {} s; srun was stopped",
                               std::chrono::ceil<std::chrono::seconds>(timeout).count());
    } else if (srun.signal != 0) {
        srun_end = fmt::format("srun was killed by {}", util::signal_name(srun.signal));
    } else {
        srun_end = fmt::format("srun exited with status {}", srun.exit_code);
    }
    if (!output.srun_lines.empty()) {
        srun_end += ": " + output.srun_lines.back();
    }
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        const slurm::ProbeAnswer& answer = output.answers[i];
        if (!answer.started) {
            outcomes[i].error = fmt::format("srun started no check there ({})", srun_end);
        } else if (answer.failure) {
            outcomes[i].error = job::describe(*answer.failure);
        } else {
            std::string status =
                answer.exit_status ? fmt::format("exit status {}", *answer.exit_status) : srun_end;
            outcomes[i] = read_answer(answer.output,
                                      fmt::format("the check printed nothing there ({})", status));
        }
    }
    return outcomes;
}

} // namespace

int execute(const check::Options& options, std::ostream& out, std::ostream& err) {
    std::vector<run::Host> hosts = hosts_of(options, err);
    check::ProbeSettings probe = check::read_settings(options, [](const std::string& name) {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    });
    std::vector<NodeAnswer> outcomes;
    switch (options.launcher) {
    case check::Launcher::ssh:
        outcomes = check_over_ssh(options, hosts, probe);
        break;
    case check::Launcher::slurm:
        outcomes = check_through_srun(options, hosts, probe);
        break;
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
