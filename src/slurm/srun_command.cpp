#include "colossalai/slurm/srun_command.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/step/task_script.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>

namespace colossalai::slurm {

using job::NodeCommand;

namespace {

// What Slurm may deliver to a step that cancels a task before the go: every signal of
// delivered_to_slurm_steps but the go's own, SIGUSR1.
std::string cancel_before_go() {
    std::vector<int> cancel;
    for (int signo : exec::signal_policy::delivered_to_slurm_steps) {
        if (signo != SIGUSR1) {
            cancel.push_back(signo);
        }
    }
    return exec::signal_policy::short_names(cancel, " ");
}

} // namespace

std::string srun_task_script(const std::vector<NodeCommand>& nodes, bool allocated,
                             const std::optional<job::RendezvousPlan>& rendezvous,
                             TaskStart start) {
    step::check_same_commands(nodes);
    const NodeCommand& first = nodes.front();
    // The master address is the step's first node when srun chose the nodes and the user did
    // not name the master.
    const bool master_from_shell =
        allocated && first.words && first.words->implicit_master.has_value();
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
    // The barrier: Slurm delivers the launcher's stop (scancel) and its go (SrunEngine::release:
    // `scancel --signal=USR1`) to every process of the step; before the go, every one but USR1
    // cancels the job (step::go_traps_shell).
    if (start == TaskStart::on_go) {
        script += step::go_traps_shell(cancel_before_go(), "USR1");
    }
    // The preflight, as in ssh's node wrapper: a failed check is named on stdout, then the task
    // ends with the preflight's status, its command not started.
    script += step::failed_check_shell("\"$r\"");
    script += step::task_preflight_shell(first, master_from_shell, run::broken_pair());
    if (rendezvous) {
        // The token is the step's id ("$cai_s"): fresh for each launch, the same in every task,
        // and known before any task runs.
        script +=
            step::task_rendezvous_shell(*rendezvous, first.preflight.master_address, "\"$cai_s\"");
    }
    // Ready: it waits until every task is (the go) or the launch stops, then starts its job unless
    // stopped (its start marker came first, naming the step: Step reads a task stopped before the
    // go as not started all the same).
    if (start == TaskStart::on_go) {
        script += step::wait_for_go_shell("\"$r\"") + "[ -z \"${cai_x-}\" ] || exit 0\n";
    }
    // The stop signals that Slurm delivers to every process of the step are trapped here (the
    // wrapper must live to print the job's status) and ignored by the relay; the job, started by
    // the relay with every signal at its default, gets them.
    script += fmt::format("trap : {}\n", exec::signal_policy::short_names(
                                             exec::signal_policy::delivered_to_slurm_steps, " "));
    script += step::task_relay_shell(first, master_from_shell, step::RelayChannel::own_streams);
    script += "\ns=$?\n" + step::exit_marker_shell("\"$r\"", "\"$s\"") + "exit \"$s\"\n";
    return script;
}

std::vector<std::string> build_srun_command(const std::vector<NodeCommand>& nodes,
                                            const std::vector<std::string>& srun_args,
                                            bool allocated,
                                            const std::optional<job::RendezvousPlan>& rendezvous,
                                            TaskStart start) {
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
    argv.insert(argv.end(), {"/bin/sh", "-c", srun_task_script(nodes, allocated, rendezvous, start),
                             "colossalai-task"});
    return argv;
}

std::vector<std::string> srun_command(const run::Plan& plan, const run::SrunLaunch& launch) {
    return build_srun_command(plan.nodes, launch.srun_args, launch.allocates, plan.rendezvous,
                              TaskStart::on_go);
}

} // namespace colossalai::slurm
