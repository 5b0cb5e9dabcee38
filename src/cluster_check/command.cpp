#include "colossalai/cluster_check/command.hpp"

#include "colossalai/check/probe.hpp"
#include "colossalai/cluster_check/compare.hpp"
#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/cluster_check/report.hpp"
#include "colossalai/engines/engines.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/ostream.h>

#include <cstdlib>

extern char** environ;

namespace colossalai::cluster_check {

namespace {

// A node's answer is a few KiB (version.py files, METADATA); more is no answer of ours.
constexpr std::size_t max_answer_bytes = 4 * 1024 * 1024;

// The allocation's hosts as `colossalai run` takes them (a PBS node file's repeated lines are one
// host), and the line that says where they came from on `err`. The engine may refuse the
// allocation (srun cannot reach a PBS job's nodes).
std::vector<run::Host> allocation_hosts(const run::EngineRow& engine, std::ostream& err) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        environment.emplace_back(*entry);
    }
    std::optional<run::SchedulerVariable> variable = run::find_scheduler_variable(environment);
    if (engine.check_allocation != nullptr) {
        engine.check_allocation(variable);
    }
    if (!variable) {
        throw usage_error("--allocation: not in a batch job's allocation (none of {} is set)",
                          run::scheduler_variable_names());
    }
    std::optional<std::string> nodefile;
    if (run::names_node_file(*variable)) {
        nodefile = run::read_hostfile(variable->value, variable->name);
    }
    std::vector<run::Host> hosts = run::scheduler_hosts(*variable, nodefile);
    fmt::print(err, "colossalai: {}\n",
               run::scheduler_notice(*variable, hosts.size(), hosts.size()));
    return hosts;
}

std::vector<run::Host> named_hosts(const check::Options& options, const run::EngineRow& engine,
                                   std::ostream& err) {
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
    if (given.empty() || options.allocation) { // nothing named: the engine's allocation
        return allocation_hosts(engine, err);
    }
    if (options.host) {
        return run::parse_host_list(*options.host, "--host");
    }
    if (options.hostfile->empty()) {
        throw usage_error("--hostfile '': empty file name");
    }
    return run::parse_hostfile(run::read_hostfile(*options.hostfile), *options.hostfile);
}

std::vector<run::Host> hosts_of(const check::Options& options, const run::EngineRow& engine,
                                std::ostream& err) {
    std::vector<run::Host> hosts = named_hosts(options, engine, err);
    if (engine.check_host != nullptr) {
        for (const run::Host& host : hosts) {
            engine.check_host(host);
        }
    }
    return hosts;
}

} // namespace

bool cluster_mode(const run::CheckOptions& options) {
    return options.host.has_value() || options.hostfile.has_value() || options.allocation ||
           engines::chosen(options).check_alone_checks_allocation;
}

int execute(const run::CheckOptions& options, std::ostream& out, std::ostream& err) {
    const run::EngineRow& engine = engines::chosen(options);
    std::vector<run::Host> hosts = hosts_of(options, engine, err);
    check::ProbeSettings probe = check::read_settings(options, [](const std::string& name) {
        const char* value = std::getenv(name.c_str());
        return value ? std::optional<std::string>(value) : std::nullopt;
    });
    std::vector<run::NodeReply> replies = engine.check_nodes(
        run::CheckRequest{.options = options,
                          .hosts = hosts,
                          .node_input = node_input(options.python, probe.timeout),
                          .node_argv = node_argv(options.python, probe.timeout),
                          .probe_timeout = probe.timeout,
                          .max_answer_bytes = max_answer_bytes});

    std::vector<NodeFacts> nodes;
    std::vector<Unreachable> unreachable;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
        // No section: its first line is a section's, so nothing of the node program ran.
        Dump dump = parse_dump(replies[i].output);
        if (dump.sections.empty()) {
            unreachable.push_back({hosts[i].name, std::move(replies[i].error)});
            continue;
        }
        check::Facts facts = facts_from_dump(dump);
        for (const std::string& warning : facts.warnings) {
            fmt::print(err, "colossalai: warning: {}: {}\n", hosts[i].name,
                       util::escape_control_bytes(warning));
        }
        nodes.push_back({hosts[i].name, std::move(facts)});
    }
    err.flush();
    AcrossNodes across = compare_nodes(nodes);
    out << (options.json ? render_cluster_json(nodes, unreachable, across)
                         : render_cluster_text(nodes, unreachable, across));
    out.flush();
    return cluster_exit_status(nodes, unreachable, across);
}

} // namespace colossalai::cluster_check
