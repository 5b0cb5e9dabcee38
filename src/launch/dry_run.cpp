#include "colossalai/launch/dry_run.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/launch/local_rendezvous.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <sstream>

namespace colossalai::launch {

using run::EnvironmentChanges;
using run::EnvSetting;
using run::EnvVar;
using run::NodeCommand;
using run::Plan;

namespace {

// What the environment flags change on one node: `env NAME=VALUE  (source)` per variable set,
// then the launcher's variables not passed (a local node keeps the launcher's own: none).
// The variables of the launcher's own flags (`flag_environment`: --network-interface's) win
// over -x and the env files: such a variable is listed once, with the source it won over.
std::string render_environment(const NodeCommand& node, bool local) {
    const EnvironmentChanges& changes = node.environment_changes;
    std::string text;
    auto overridden = [&](const std::string& name) {
        return std::any_of(node.flag_environment.begin(), node.flag_environment.end(),
                           [&](const EnvVar& variable) { return variable.first == name; });
    };
    for (const EnvSetting& setting : changes.set) {
        if (!overridden(setting.name)) {
            text += fmt::format("    env {}={}  ({})\n", setting.name,
                                util::shell_quote(setting.value), setting.source);
        }
    }
    for (const EnvVar& variable : node.flag_environment) {
        // Not a structured binding: clang (the fuzz build) cannot capture one in a lambda.
        const std::string& name = variable.first;
        auto over = std::find_if(changes.set.begin(), changes.set.end(),
                                 [&](const EnvSetting& setting) { return setting.name == name; });
        std::string_view flag = node.gpus && name == job::cuda_visible_devices
                                    ? "the GPU selection"
                                    : "--network-interface";
        text += fmt::format("    env {}={}  ({}{})\n", name, util::shell_quote(variable.second),
                            flag, over == changes.set.end() ? "" : ", over " + over->source);
    }
    if (!node.withheld_environment.empty()) {
        text += fmt::format("    env not passed (the launcher's own Slurm task and node; the "
                            "node has its own): {}\n",
                            fmt::join(node.withheld_environment, " "));
    }
    if (changes.patterns.empty()) {
        return text;
    }
    if (local) {
        return text + "    env: a local node has the launcher's own variables (--env-exclude "
                      "drops nothing here)\n";
    }
    std::string patterns = fmt::format("{}", fmt::join(changes.patterns, ","));
    if (changes.dropped.empty()) {
        return text + fmt::format("    env: none of the launcher's variables match --env-exclude "
                                  "{}; the node keeps its own\n",
                                  util::shell_quote(patterns));
    }
    return text + fmt::format("    env not passed (--env-exclude {}; the node keeps its own): {}\n",
                              util::shell_quote(patterns), fmt::join(changes.dropped, " "));
}

} // namespace

void write_dry_run(const Plan& plan, std::ostream& out) {
    size_t count = plan.nodes.size();
    std::string torch = plan.torch_version ? fmt::format("PyTorch {}", *plan.torch_version)
                                           : "PyTorch not found (assuming >= 2.0)";
    std::string text = fmt::format("dry run: {} node{}, {}\n", count, count == 1 ? "" : "s", torch);
    if (plan.log_dir) {
        text += fmt::format("logs: {}\n", util::shell_quote(*plan.log_dir));
    }
    if (plan.elastic) {
        const run::ElasticPlan& elastic = *plan.elastic;
        text += fmt::format(
            "elastic: --nnodes {}, rendezvous {} at {}, id {}{}; the job goes on "
            "while {} {}\n",
            to_string(elastic.nodes), to_string(elastic.backend), to_string(elastic.endpoint),
            elastic.id,
            elastic.max_restarts ? fmt::format(", max_restarts {}", *elastic.max_restarts) : "",
            elastic.nodes.min, elastic.nodes.min == 1 ? "node remains" : "nodes remain");
    }
    if (engines::rendezvous_way(plan) != job::RendezvousWay::none) {
        text += describe_rendezvous_check(*plan.rendezvous) + "\n";
    }
    text += engines::dry_run_header(plan);
    out << text;
    for (const NodeCommand& node : plan.nodes) {
        std::string transport = engines::dry_run_transport(plan, node);
        // One node at a time: the text of 100,000 nodes is never held whole.
        text = fmt::format("[node {}] {} ({}) cwd={}\n", node.rank, util::shell_quote(node.host),
                           transport, util::shell_quote(node.working_directory));
        if (node.gpus) {
            text += fmt::format("    GPUs {}: {} process{}\n", run::render_gpus(*node.gpus),
                                node.gpus->size(), node.gpus->size() == 1 ? "" : "es");
        }
        text += fmt::format("    {}\n", util::shell_join(node.argv));
        text += render_environment(node, node.local);
        out << text;
    }
}

std::string render_dry_run(const Plan& plan) {
    std::ostringstream out;
    write_dry_run(plan, out);
    return std::move(out).str();
}

} // namespace colossalai::launch
