#include "colossalai/mpirun/mpirun_command.hpp"

#include "colossalai/run/torch_forms.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/step/task_script.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/signal_name.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <csignal>

namespace colossalai::mpirun {

using job::NodeCommand;
using run::MpiKind;

namespace {

// The options mpirun's command sets itself, as --mpirun-args would spell them.
constexpr std::string_view own_options[] = {"-np",
                                            "-n",
                                            "-c",
                                            "--np",
                                            "--n",
                                            "-H",
                                            "--host",
                                            "-host",
                                            "-hosts",
                                            "--hostfile",
                                            "-hostfile",
                                            "--machinefile",
                                            "-machinefile",
                                            "-f",
                                            "--map-by",
                                            "-map-by",
                                            "-ppn",
                                            "--npernode",
                                            "-npernode",
                                            "--tag-output",
                                            "-tag-output",
                                            "-l",
                                            "-prepend-rank",
                                            "--output-filename",
                                            "-output-filename"};

// The variables each MPI gives its tasks (their rank, their connection to the launcher): the
// launcher's own, when it runs inside an MPI job, must not replace them.
constexpr std::string_view mpi_prefixes[] = {"OMPI_", "OPAL_",  "ORTE_", "PMIX_",
                                             "PMI_",  "HYDRA_", "HYDI_", "MPIR_"};

bool is_shell_name(std::string_view name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
        return false;
    }
    return name.find_first_not_of(
               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
           std::string_view::npos;
}

bool is_mpi_variable(std::string_view name) {
    for (std::string_view prefix : mpi_prefixes) {
        if (util::starts_with(name, prefix)) {
            return true;
        }
    }
    return false;
}

// `export NAME=VALUE` for each variable the node gets, quoted for sh.
std::string export_lines(const NodeCommand& first) {
    std::string lines;
    for (const std::vector<job::EnvVar>* vars :
         {&first.environment.get(), &first.flag_environment}) {
        for (const auto& [name, value] : *vars) {
            if (is_shell_name(name) && !is_mpi_variable(name)) {
                lines += fmt::format("export {}={}\n", name, util::shell_quote(value));
            }
        }
    }
    return lines;
}

} // namespace

std::string_view rank_variable(MpiKind mpi) {
    return mpi == MpiKind::open_mpi ? "OMPI_COMM_WORLD_RANK" : "PMI_RANK";
}

std::string placement_check_shell() {
    // This machine has the node's address when it can bind to it.
    return "perl -MSocket=:addrinfo,SOCK_STREAM -e 'my ($e, @a) = getaddrinfo($ARGV[0], \"\", "
           "{socktype => SOCK_STREAM}); for (@a) { socket(my $s, $_->{family}, SOCK_STREAM, "
           "0) or next; bind($s, $_->{addr}) and exit 0 } exit 1' \"$a\" || cai_f \"host $a\"\n";
}

std::optional<MpiKind> detect_mpi(std::string_view version_output) {
    if (version_output.find("(Open MPI)") != std::string_view::npos ||
        version_output.find("(OpenRTE)") != std::string_view::npos) {
        return MpiKind::open_mpi;
    }
    if (version_output.find("HYDRA build details") != std::string_view::npos) {
        return MpiKind::hydra;
    }
    return std::nullopt;
}

std::vector<std::string> parse_mpirun_args(std::string_view text) {
    std::vector<std::string> words = util::split_shell_words(text, "--mpirun-args");
    for (const std::string& word : words) {
        std::string_view name = std::string_view(word).substr(0, word.find('='));
        for (std::string_view own : own_options) {
            if (name == own) {
                throw usage_error("--mpirun-args: '{}' is set by the launcher itself",
                                  util::escape_for_message(word));
            }
        }
    }
    return words;
}

TaskSignals task_signals(MpiKind mpi) {
    return mpi == MpiKind::open_mpi ? TaskSignals{SIGUSR1, SIGUSR2, SIGUSR2}
                                    : TaskSignals{SIGALRM, SIGTERM, SIGUSR1};
}

std::string mpirun_task_script(const std::vector<NodeCommand>& nodes, MpiKind mpi,
                               const std::optional<job::RendezvousPlan>& rendezvous) {
    step::check_same_commands(nodes);
    const NodeCommand& first = nodes.front();
    std::string_view variable = rank_variable(mpi);
    std::string script = fmt::format("r=${{{}-}}\ncase $r in\n", variable);
    for (const NodeCommand& node : nodes) {
        script += fmt::format("{}) a={} ;;\n", node.rank, util::shell_quote(node.address));
    }
    script += fmt::format("*) echo \"colossalai: mpirun gave this task the rank '$r' ({}), not "
                          "one of the run's {} nodes\" >&2; exit 127 ;;\nesac\n",
                          variable, nodes.size());
    script += export_lines(first);
    script += step::failed_check_shell("\"$r\"");
    // The signals mpirun forwards (task_signals): before the job, `kill` cancels it (cai_x) and
    // `go` lets it start (cai_g) (step::go_traps_shell); the wrapper and the relay ignore every
    // stop signal themselves. (A sleep that lost a SIGTERM to the wrapper's trap once held the
    // task's output open, and Open MPI's mpirun waited for it for ever after every job ended.)
    TaskSignals signals = task_signals(mpi);
    auto name = [](int signo) { return std::string(*util::short_signal_name(signo)); };
    script += "trap 'exit 0' EXIT\ntrap : INT HUP QUIT ALRM TERM USR1 USR2\n";
    script += step::go_traps_shell(name(signals.kill) + (signals.stop == SIGTERM ? " TERM" : ""),
                                   name(signals.go));
    script += step::task_preflight_shell(first, false, run::broken_pair());
    script += placement_check_shell();
    // The rendezvous check before the ready marker: a task whose check failed is never ready, so
    // the go is never sent and no job starts anywhere. The token is the script's first argument
    // (build_mpirun_command), fresh for each launch.
    if (rendezvous) {
        script +=
            step::task_rendezvous_shell(*rendezvous, first.preflight.master_address, "\"$1\"");
    }
    // Ready: it waits until every task is (Engine::release sends `go`) or the launch stops.
    script += step::wait_for_go_shell("\"$r\"");
    // The stop: mpirun forwards `stop` (and `kill`) to the wrapper, which passes SIGTERM (SIGKILL)
    // on to its whole process group: the job (started by the relay with every signal at its
    // default) gets it. Hydra's stop, SIGTERM, reaches the job from mpiexec itself. cai_w: a trap
    // ran, so the wait below was interrupted and goes on; cai_x: stopped, so a job not started
    // yet never starts. These traps are set before that check: a stop right after the go (a
    // task that failed at once) is never taken for the go's cancel, nor lost.
    if (signals.stop == signals.kill) { // Open MPI: the second stop is the kill
        script +=
            fmt::format("trap 'cai_w=1 cai_x=1; if [ -n \"${{cai_t-}}\" ]; then kill -KILL 0; "
                        "else cai_t=1; kill -TERM 0; fi' {}\n",
                        name(signals.stop));
    } else {
        script += fmt::format("trap 'cai_w=1 cai_x=1{}' {}\n",
                              signals.stop == SIGTERM ? "" : "; kill -TERM 0", name(signals.stop));
        script += fmt::format("trap 'cai_w=1 cai_x=1; kill -KILL 0' {}\n", name(signals.kill));
    }
    // Stopped before its job: it ends without a start marker, `not_started`. The start marker
    // says the job may have run.
    script += "[ -z \"${cai_x-}\" ] || exit 0\n";
    script += step::start_marker_shell("\"$r\"", "mpirun", "\"$a\"");
    script += step::task_relay_shell(first, false, step::RelayChannel::stderr_packets) + " <&0 &\n";
    // A stop between the check above and the relay's start: its job gets the SIGTERM now.
    script += "cai_p=$!\n[ -z \"${cai_x-}\" ] || kill -TERM 0\n"
              "while :; do cai_w=; wait \"$cai_p\" 2>/dev/null; s=$?; [ -n \"$cai_w\" ] && [ "
              "\"$s\" -gt 128 ] "
              "|| break; done\n";
    script += step::exit_marker_shell("\"$r\"", "\"$s\"");
    return script;
}

std::vector<std::string> mpirun_tasks_command(const std::vector<NodeCommand>& nodes,
                                              const run::MpirunLaunch& launch,
                                              const std::string& script) {
    std::vector<std::string_view> hosts;
    for (const NodeCommand& node : nodes) {
        hosts.push_back(node.address);
    }
    std::string count = std::to_string(nodes.size());
    std::string host_list = fmt::format("{}", fmt::join(hosts, ","));
    std::vector<std::string> argv;
    if (launch.mpi == MpiKind::open_mpi) {
        argv = {launch.program,
                "-np",
                count,
                "--host",
                host_list,
                "--map-by",
                "ppr:1:node",
                "--bind-to",
                "none",
                "--mca",
                "odls_base_signal_direct_children_only",
                "1"};
    } else {
        argv = {launch.program, "-n", count, "-ppn", "1", "-hosts", host_list};
    }
    argv.insert(argv.end(), launch.mpirun_args.begin(), launch.mpirun_args.end());
    argv.insert(argv.end(), {"/bin/sh", "-c", script, "colossalai-task"});
    return argv;
}

std::vector<std::string>
build_mpirun_command(const std::vector<NodeCommand>& nodes, const run::MpirunLaunch& launch,
                     const std::optional<job::RendezvousPlan>& rendezvous) {
    std::vector<std::string> argv =
        mpirun_tasks_command(nodes, launch, mpirun_task_script(nodes, launch.mpi, rendezvous));
    if (rendezvous) {
        argv.push_back(rendezvous->token);
    }
    return argv;
}

std::vector<std::string> mpirun_command(const run::Plan& plan, const run::MpirunLaunch& launch) {
    return build_mpirun_command(plan.nodes, launch, plan.rendezvous);
}

} // namespace colossalai::mpirun
