#include "colossalai/run/dry_run.hpp"

#include "colossalai/util/quote.hpp"

#include <fmt/core.h>

namespace colossalai::run {

std::string render_dry_run(const Plan& plan) {
    size_t count = plan.nodes.size();
    std::string torch = plan.torch_version ? fmt::format("PyTorch {}", *plan.torch_version)
                                           : "PyTorch not found (assuming >= 2.0)";
    std::string text = fmt::format("dry run: {} node{}, {}\n", count, count == 1 ? "" : "s", torch);
    if (!plan.srun_command.empty()) {
        text += fmt::format("srun (one task per node; {} runs its node's command below):\n    {}\n",
                            "/bin/sh -c SCRIPT", util::shell_join(plan.srun_command));
    }
    for (const NodeCommand& node : plan.nodes) {
        std::string transport = !plan.srun_command.empty() ? std::string("slurm")
                                : node.local               ? std::string("local")
                                : node.ssh_port ? fmt::format("ssh port {}", *node.ssh_port)
                                                : std::string("ssh");
        text += fmt::format("[node {}] {} ({}) cwd={}\n", node.rank, util::shell_quote(node.host),
                            transport, util::shell_quote(node.working_directory));
        text += fmt::format("    {}\n", util::shell_join(node.argv));
    }
    return text;
}

} // namespace colossalai::run
