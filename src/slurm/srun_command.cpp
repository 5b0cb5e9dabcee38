#include "colossalai/slurm/srun_command.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/step/relay.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace colossalai::slurm {

using job::NodeCommand;

namespace {

// Every task runs node 0's command with its own node rank: the nodes' commands must differ in
// that word alone, which the planner says where it is (nothing searches the words).
void check_same_commands(const std::vector<NodeCommand>& nodes) {
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

} // namespace

// The command that runs this task's part of `check` (its rank in "$r", the program in "$cai_y"):
// the listener's on its rank, everyone else's connection, to the script's master address
// ("$cai_m") when the check's address is the master's. The token is the step's id ("$cai_s"):
// fresh for each launch, the same in every task, and known before any task runs.
std::string rendezvous_probe(const job::RendezvousPlan& check, const std::string& master) {
    auto command = [&](std::size_t rank) {
        job::ShellWords words{std::nullopt, "\"$cai_s\""};
        if (check.address == master) {
            words.address = "\"$cai_m\"";
        }
        job::RendezvousProbe probe = job::probe_for(check, rank, job::ProbeStart::together);
        if (std::holds_alternative<job::RendezvousListen>(probe.role)) {
            // Past the others' bound: a task whose check failed ends the step (fail-fast)
            // before the listener gives up and its task would start its job.
            probe.bound *= 2;
        }
        return job::rendezvous_shell_command(check.python, probe, "cai_y", words);
    };
    std::size_t other = check.listener == 0 ? 1 : 0;
    if (!check.listener) {
        return command(other);
    }
    return fmt::format("if [ \"$r\" = {} ]; then {}; else {}; fi", *check.listener,
                       command(*check.listener), command(other));
}

std::string srun_task_script(const std::vector<NodeCommand>& nodes, bool allocated,
                             const std::optional<job::RendezvousPlan>& rendezvous) {
    if (nodes.empty()) {
        throw fatal_error("no nodes to run");
    }
    check_same_commands(nodes);
    const std::vector<std::string>& argv = nodes.front().argv;
    // Where the per-node words are; argv.size() where there is none.
    const std::optional<job::NodeWords>& words = nodes.front().words;
    const std::size_t rank = words ? words->node_rank : argv.size();
    // The master address is the step's first node when srun chose the nodes and the user did
    // not name the master.
    const std::size_t master =
        allocated && words && words->implicit_master ? *words->implicit_master : argv.size();
    std::string script;
    if (allocated) {
        script = "r=${SLURM_NODEID-}\n"
                 "case $r in ''|*[!0-9]*) echo \"colossalai: no node id from Slurm "
                 "(SLURM_NODEID='$r')\" >&2; exit 127 ;; esac\n"
                 "m=$(printf '%s\\n' \"${SLURM_STEP_NODELIST-}\" | "
                 "sed 's/\\[\\([0-9]*\\)[^]]*\\]/\\1/g; s/,.*//')\n";
    } else {
        script = "case ${SLURMD_NODENAME-} in\n";
        for (const NodeCommand& node : nodes) {
            script += fmt::format("{}) r={} ;;\n", util::shell_quote(node.host), node.rank);
        }
        script += "*) echo \"colossalai: the Slurm node '${SLURMD_NODENAME-}' is not one of the "
                  "run's hosts\" >&2; exit 127 ;;\nesac\n";
    }
    // The step, for the launcher's scancel: SLURM_JOBID and SLURM_STEPID are the older names.
    script += "cai_s=${SLURM_JOB_ID-${SLURM_JOBID-}}.${SLURM_STEP_ID-${SLURM_STEPID-}}\n";
    script += step::start_marker_shell("\"$r\"", "\"$cai_s\"", "\"${SLURMD_NODENAME-}\"");
    // The preflight, as in ssh's node wrapper: a failed check is named on stdout, then the task
    // ends with the preflight's status, its command not started.
    const NodeCommand& first = nodes.front();
    std::string interfaces = fmt::format("{}", fmt::join(first.preflight.interfaces, ","));
    script += step::failed_check_shell("\"$r\"");
    // Node 0's GPU need is every task's: the nodes run one command (check_same_commands), so the
    // same process count, and GPU indices are refused with srun (run/planner.cpp).
    script += fmt::format("cai_d={} cai_c={} cai_i={} cai_u={}\n",
                          util::shell_quote(first.working_directory),
                          util::shell_quote(argv.front()), util::shell_quote(interfaces),
                          util::shell_quote(job::gpu_check_word(first.preflight.gpus)));
    script += master < argv.size()
                  ? "cai_m=$m\n"
                  : fmt::format("cai_m={}\n", util::shell_quote(first.preflight.master_address));
    // The script every task checks: '' checks none (-m, no_python).
    script += fmt::format("cai_j={}\n", util::shell_quote(first.preflight.script.value_or("")));
    script += job::preflight_shell(job::preflight_shell_names("cai_c"));
    // Once the checks pass: a known-broken PyTorch and Python pair is a notice, not a failure.
    script += step::notice_shell("\"$r\"");
    script += fmt::format("cai_b={}\n", job::torch_pair_word(first.preflight.torch_pair));
    script += job::torch_pair_check_shell("cai_note", "cai_b", "cai_c", run::broken_pair());
    // The relay's interpreter. The stop signals that Slurm delivers to every process of the
    // step are trapped here (the wrapper must live to print the job's status) and ignored by the
    // relay; the job, started by the relay with every signal at its default, gets them.
    script += "command -v perl >/dev/null 2>&1 || cai_f 'helper perl'\n";
    if (rendezvous) {
        script += "cai_y=" + util::shell_quote(job::rendezvous_program()) + "\n";
        script += step::rendezvous_check_shell(
            "\"$r\"", rendezvous_probe(*rendezvous, first.preflight.master_address));
    }
    script += fmt::format("trap : {}\n", exec::signal_policy::short_names(
                                             exec::signal_policy::delivered_to_slurm_steps, " "));
    script += "perl -e " + util::shell_quote(step::relay_program()) + " \"$r\" ";
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
    script += "\ns=$?\n" + step::exit_marker_shell("\"$r\"", "\"$s\"") + "exit \"$s\"\n";
    return script;
}

std::vector<std::string> build_srun_command(const std::vector<NodeCommand>& nodes,
                                            const std::vector<std::string>& srun_args,
                                            bool allocated,
                                            const std::optional<job::RendezvousPlan>& rendezvous) {
    std::vector<std::string> argv = {"srun", fmt::format("--nodes={}", nodes.size()),
                                     fmt::format("--ntasks={}", nodes.size()),
                                     "--ntasks-per-node=1"};
    if (!allocated) {
        std::vector<std::string_view> hosts;
        for (const NodeCommand& node : nodes) {
            hosts.push_back(node.host);
        }
        argv.push_back(fmt::format("--nodelist={}", fmt::join(hosts, ",")));
    }
    argv.insert(argv.end(), {"--kill-on-bad-exit=0", "--label"});
    argv.insert(argv.end(), srun_args.begin(), srun_args.end());
    argv.insert(argv.end(), {"/bin/sh", "-c", srun_task_script(nodes, allocated, rendezvous),
                             "colossalai-task"});
    return argv;
}

std::vector<std::string> srun_command(const run::Plan& plan, const run::SrunLaunch& launch) {
    return build_srun_command(plan.nodes, launch.srun_args, launch.allocates, plan.rendezvous);
}

} // namespace colossalai::slurm
