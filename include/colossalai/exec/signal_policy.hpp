#pragma once

#include <signal.h>

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <string_view>

// The one signal policy of `run` (the launcher), `check` (the probe runner) and the node wrapper
// that `run` starts over SSH: which signals stop them, which are passed on to the nodes, which
// are ignored, and which a started program gets back at their defaults. Every list here is the
// only spelling of its set; the names are util/signal_name's.
namespace colossalai::exec::signal_policy {

// The stop signals: they end a run (the launcher relays each to every node, then kills after the
// grace) or a check (the probes' groups are killed first). Received through a signalfd
// (SignalChannel); one that is ignored when the process starts (nohup, `trap '' HUP`) stays
// ignored: it is not received, so never relayed, and the jobs start with it ignored too.
inline constexpr std::array<int, 3> stop{SIGINT, SIGTERM, SIGHUP};

// What the launcher passes on to a remote node as a control line (ssh::control_line), and so
// what the node wrapper acts on: the stop signals, and SIGKILL when the grace has passed.
inline constexpr std::array<int, 4> relayed_to_nodes{SIGINT, SIGTERM, SIGHUP, SIGKILL};

// What a Slurm task's wrapper traps and its relay ignores (slurm/srun_command.cpp,
// step/relay.cpp), while the job, which the relay starts with every signal at its default, gets
// them. Wider than relayed_to_nodes: over SSH the launcher chooses what reaches a node (a control
// line per relayed signal, read by the wrapper's watcher), but Slurm delivers a step's signals
// (`scancel --signal`, the ones srun forwards) to every process of every task itself, wrapper
// and relay included, and both must outlive them to report the job's status.
inline constexpr std::array<int, 7> delivered_to_slurm_steps{SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                                             SIGUSR1, SIGUSR2, SIGALRM};

// What the launcher's guardian ignores: it outlives the launcher to clean up after it, so a
// signal to the launcher's group, or a closed pipe, must not end it.
inline constexpr std::array<int, 5> ignored_by_guardian{SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};

// Reset to their defaults between fork and exec of a job (reset_signals_for_exec): the ones the
// launcher changes or a shell would give a program; a stop signal ignored at start is not.
inline constexpr std::array<int, 6> default_for_jobs{SIGINT,  SIGTERM, SIGHUP,
                                                     SIGPIPE, SIGQUIT, SIGCHLD};

// Given their defaults in a probe that capture() starts (its own process group, out of the
// terminal's reach): a probe is ended by its deadline or by the check's stop, never kept alive.
inline constexpr std::array<int, 3> default_for_probes{SIGPIPE, SIGINT, SIGTERM};

// Whether `signo` is in `list`.
template <std::size_t N>
constexpr bool contains(const std::array<int, N>& list, int signo) {
    return std::find(list.begin(), list.end(), signo) != list.end();
}

// `list` as a signal set.
template <std::size_t N>
sigset_t as_set(const std::array<int, N>& list) {
    sigset_t set;
    sigemptyset(&set);
    for (int signo : list) {
        sigaddset(&set, signo);
    }
    return set;
}

// The names of `list` without "SIG" (util::short_signal_name: "INT", "TERM"), in its order,
// joined by `separator`: how a shell's `trap` or `case` and perl's `qw()` spell a set. Every
// signal of the lists above has a name there.
std::string short_names(std::span<const int> list, std::string_view separator);

} // namespace colossalai::exec::signal_policy
