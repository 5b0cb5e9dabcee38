#include "colossalai/step/task_script.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/job/rendezvous_check.hpp"
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

std::string go_traps_shell(std::string_view cancel, std::string_view go) {
    return fmt::format("trap 'cai_x=1; kill -KILL \"${{cai_k-}}\" 2>/dev/null' {}\n"
                       "trap 'cai_g=1; kill -KILL \"${{cai_k-}}\" 2>/dev/null' {}\n",
                       cancel, go);
}

std::string wait_for_go_shell(std::string_view rank) {
    // (The shell's word on a child ended by a signal, `Alarm clock`, `Terminated`, is not the
    // job's.)
    return "[ -n \"${cai_x-}\" ] || " + ready_marker_shell(rank) +
           "sleep 2147483647 & cai_k=$!\n"
           "while [ -z \"${cai_g-}${cai_x-}\" ]; do wait \"$cai_k\" 2>/dev/null; done\n"
           "kill -KILL \"$cai_k\" 2>/dev/null\n";
}

std::string task_rendezvous_shell(const job::RendezvousPlan& check, const std::string& master,
                                  std::string_view token) {
    auto command = [&](std::size_t rank) {
        job::ShellWords words{std::nullopt, std::string(token)};
        if (check.address == master) {
            words.address = "\"$cai_m\"";
        }
        job::RendezvousProbe probe = job::probe_for(check, rank, job::ProbeStart::together);
        if (std::holds_alternative<job::RendezvousListen>(probe.role)) {
            // Past the others' bound: a task whose check failed stops the launch (fail-fast)
            // before the listener gives up, which would read as its own failure (srun: and its
            // task would start its job).
            probe.bound *= 2;
        }
        return job::rendezvous_shell_command(check.python, probe, "cai_y", words);
    };
    std::size_t other = check.listener == 0 ? 1 : 0;
    std::string probe =
        !check.listener ? command(other)
                        : fmt::format("if [ \"$r\" = {} ]; then {}; else {}; fi", *check.listener,
                                      command(*check.listener), command(other));
    return "cai_y=" + util::shell_quote(job::rendezvous_program()) + "\n" +
           rendezvous_check_shell("\"$r\"", probe);
}

} // namespace colossalai::step
