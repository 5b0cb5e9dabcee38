#include "colossalai/step/task_script.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/step/relay.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/format.h>

namespace colossalai::step {

using job::NodeCommand;

void check_same_commands(const std::vector<NodeCommand>& nodes) {
    if (nodes.empty()) {
        throw fatal_error("no nodes to run");
    }
    const NodeCommand& first = nodes.front();
    for (const NodeCommand& node : nodes) {
        if (node.argv.size() != first.argv.size() || node.words != first.words) {
            throw fatal_error("the nodes' commands differ in more than the node rank");
        }
        for (std::size_t i = 0; i < first.argv.size(); ++i) {
            if (node.argv[i] != first.argv[i] && (!first.words || i != first.words->node_rank)) {
                throw fatal_error("the nodes' commands differ in more than the node rank");
            }
        }
    }
}

std::string task_preflight_shell(const NodeCommand& first, bool master_from_shell,
                                 const job::BrokenPair& broken) {
    std::string interfaces = fmt::format("{}", fmt::join(first.preflight.interfaces, ","));
    // Node 0's GPU need is every task's: the nodes run one command (check_same_commands), so the
    // same process count, and GPU indices are refused by the step's engines.
    std::string script = fmt::format(
        "cai_d={} cai_c={} cai_i={} cai_u={}\n", util::shell_quote(first.working_directory),
        util::shell_quote(first.argv.front()), util::shell_quote(interfaces),
        util::shell_quote(job::gpu_check_word(first.preflight.gpus)));
    script += master_from_shell
                  ? "cai_m=$m\n"
                  : fmt::format("cai_m={}\n", util::shell_quote(first.preflight.master_address));
    // The script every task checks: '' checks none (-m, no_python).
    script += fmt::format("cai_j={}\n", util::shell_quote(first.preflight.script.value_or("")));
    script += job::preflight_shell(job::preflight_shell_names("cai_c"));
    // Once the checks pass: a known-broken PyTorch and Python pair is a notice, not a failure.
    script += notice_shell("\"$r\"");
    script += fmt::format("cai_b={}\n", job::torch_pair_word(first.preflight.torch_pair));
    script += job::torch_pair_check_shell("cai_note", "cai_b", "cai_c", broken);
    // The relay's interpreter.
    script += "command -v perl >/dev/null 2>&1 || cai_f 'helper perl'\n";
    return script;
}

std::string task_relay_shell(const NodeCommand& first, bool master_from_shell,
                             RelayChannel channel) {
    const std::vector<std::string>& argv = first.argv;
    const std::optional<job::NodeWords>& words = first.words;
    const std::size_t rank = words ? words->node_rank : argv.size();
    const std::size_t master = master_from_shell && words && words->implicit_master
                                   ? *words->implicit_master
                                   : argv.size();
    std::string script = "perl -e " + util::shell_quote(relay_program()) + " \"$r\" " +
                         std::string(relay_argument(channel)) + ' ';
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) {
            script += ' ';
        }
        if (i == rank) {
            script += "\"--node_rank=$r\"";
        } else if (i == master) {
            script += "\"--master_addr=$m\"";
        } else {
            script += i == 0 ? util::shell_join({argv[i]}) : util::shell_quote(argv[i]);
        }
    }
    return script;
}

} // namespace colossalai::step
