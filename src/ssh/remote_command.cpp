#include "colossalai/ssh/remote_command.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/signal_name.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <utility>

namespace colossalai::ssh {

namespace {

// The one line every login shell passes on unchanged (login_command()): words without a quote,
// a backslash, a `!`, a `$` or a glob.
constexpr std::string_view loader = "exec /bin/sh -s";

// Names start with `cai_` and are set after the environment is evaluated, so that no exported
// variable can change them.
// - The first line says the launcher's command runs: a node that ends before it did not run it
//   (its login shell is nologin or /bin/false), one that ends after it failed in the wrapper.
// - cai_k signals the job's group, or the job's own PID while it has not yet made itself a
//   group leader: a control line (or EOF) that arrives right after the start would otherwise
//   find no group and be lost, and the job would run on unstopped.
// - `wait` with stderr on /dev/null: sh reports a job killed by a signal ("Terminated",
//   "Killed") on its stderr, which is the node's stderr; the status says it already.
// - sh starts a background job with SIGINT and SIGQUIT ignored (no job control), and an
//   ignored signal stays ignored across exec: coreutils' env (8.31 and later) restores the
//   defaults, so that INT stops a plain program as it does on a local node. Whether this env
//   can is asked before the ready line, so that it costs the time before the barrier, and
//   without a command to run (env then prints the environment): each process costs a node
//   about 4 ms of CPU, and the launch of many nodes whose sshd share CPUs waits for all of it.
// - With a silence limit (cai_h seconds, 0 = none), each line is read under coreutils'
//   `timeout` (dash's `read` has no timeout); running out of time counts as EOF. A cut network
//   never delivers EOF, but it stops the launcher's heartbeats.
// - `PAUSE` (the launcher is about to be stopped, Ctrl-Z) lifts the silence limit until the
//   next line: a stopped launcher sends no heartbeat, and its job must not die of that.
// - When the silence limit passed (timeout's 124), the watcher tells the wrapper (USR1, whose
//   trap may interrupt its `wait`: then it waits again) before it stops the job; the wrapper
//   then ends by SIGALRM (silence_signal), so that the launcher, should it ever read the end
//   (it was stopped by SIGSTOP, which sends no PAUSE), says the node stopped the job, and not
//   that the job failed. A job that ended before the limit keeps its status: the wrapper kills
//   the watcher as soon as the job has ended.
// - Preflight, before the job: the working directory, the command (argv[0]), the script torchrun
//   will open (cai_j; '' with -m or no_python: nothing checked), the master address
//   (`getent ahosts`, not even started for a numeric address: IPv4 digits and dots, or IPv6
//   with a `:`), the named interfaces and, when the launch asks for GPUs, their count
//   (job::gpu_check_word; no probe runs otherwise). Once they pass, and when the launch asks it
//   (cai_b, job::torch_pair_word), the node reads its own PyTorch and Python: a known-broken
//   pair is one notice line (job::notice_marker) before the answer, which fails nothing. The answer
//   is one line on stdout (ready, or the failed check); then the wrapper waits for the launcher's
//   `go` line, and ends without starting anything on anything else (EOF). The launcher reads the
//   answer in its loop while it connects other hosts: the checks cost a launch no round trip of
//   their own.
// - Between ready and `go`, each `rdzv` line runs cai_z, the node's part of the rendezvous check
//   (rendezvous_function, in the prelude): the listener in the background (cai_y, killed at `go`
//   or EOF: its stdin is not the launcher's), the connection in the foreground; their result
//   lines go to stdout, where the launcher reads them as it read the answer.
// - The job's status is passed on as it is: 128+N means "exit code 128+N" or "killed by
//   signal N", which sh cannot tell apart; the launcher, which knows the signals it relayed,
//   decides.
// - With cai_x=1 (ExitLine::printed) the wrapper's last line on stdout, once the job and what it
//   left in its group are gone, is its status (exit_line_marker): ssh's own exit status is 255
//   both for a job that exited 255 and for a connection it lost, and a job's group killed
//   before the line keeps any of its output from following it.
constexpr std::string_view wrapper_head =
    R"sh(printf "\036colossalai-started\n"
cai_g=$1 cai_h=$2 cai_d=$3 cai_m=$4 cai_i=$5 cai_x=$6 cai_u=$7
shift 7
cai_j=$1
shift
cai_b=$1
shift
cai_f() { printf "\036colossalai-failed %s\n" "$1"; exit 125; }
cai_note() { printf "\036colossalai-notice %s\n" "$1"; }
)sh";
// Then the preflight (job::preflight_shell, shared with the srun task script), then:
constexpr std::string_view wrapper_tail =
    R"sh(command -v timeout >/dev/null || cai_h=0
cai_e=
env --default-signal=INT >/dev/null 2>&1 && cai_e="env --default-signal=INT,QUIT"
printf "\036colossalai-ready\n"
cai_y=
while IFS= read -r cai_l && [ "$cai_l" = rdzv ]; do cai_z; done
[ -z "$cai_y" ] || { kill "$cai_y"; wait "$cai_y"; } 2>/dev/null
[ "$cai_l" = go ] || exit 125
exec 3<&0 </dev/null
setsid $cai_e "$@" 3<&- &
cai_p=$!
cai_a=
trap "cai_a=1" USR1
(
cai_k() { kill -s "$1" -- "-$cai_p" || kill -s "$1" "$cai_p"; }
while if [ "$cai_h" = 0 ]; then IFS= read -r cai_s; else cai_s=$(timeout "$cai_h" /bin/sh -c "IFS= read -r cai_s && printf %s \"\$cai_s\"") || { [ $? = 124 ] && kill -s USR1 $$; false; }; fi; do
)sh";
// Then `case $cai_s in INT|TERM|HUP|KILL) cai_k "$cai_s";;` (relayed_case: the signals of
// exec::signal_policy::relayed_to_nodes, as control_line() names them), then:
constexpr std::string_view wrapper_control_tail =
    R"sh( PAUSE) cai_q=$cai_h cai_h=0;; *) [ -n "$cai_q" ] && cai_h=$cai_q cai_q=;; esac
done
cai_k TERM || exit 0
cai_n=0
while [ "$cai_n" -lt "$cai_g" ] && cai_k 0; do sleep 0.1; cai_n=$((cai_n+1)); done
cai_k KILL
) <&3 >/dev/null 2>&1 &
cai_w=$!
exec 3<&-
wait "$cai_p" 2>/dev/null
cai_r=$?
[ -n "$cai_a" ] && wait "$cai_p" 2>/dev/null
kill -s KILL -- "-$cai_p" 2>/dev/null
kill -s KILL "$cai_w" 2>/dev/null
cai_t=$cai_r
[ -n "$cai_a" ] && cai_t=ALRM
[ "$cai_x" = 1 ] && printf "\036colossalai-exit %s\n" "$cai_t"
[ -n "$cai_a" ] && trap - ALRM && kill -s ALRM $$
exit "$cai_r")sh";

// The watcher's case for the control lines that name a signal: each signal the launcher relays,
// passed on to the job's group.
std::string relayed_case() {
    return "case $cai_s in " +
           exec::signal_policy::short_names(exec::signal_policy::relayed_to_nodes, "|") +
           ") cai_k \"$cai_s\";;";
}

const std::string& wrapper_text() {
    static const std::string text =
        std::string(wrapper_head) + job::preflight_shell(job::preflight_shell_names("1")) +
        job::torch_pair_check_shell("cai_note", "cai_b", "1", run::broken_pair()) +
        std::string(wrapper_tail) + relayed_case() + std::string(wrapper_control_tail);
    return text;
}

constexpr std::string_view ready_line = "\036colossalai-ready";

// The first line of `text` with something in it, trimmed and cut to 200 bytes: what a failure's
// one line quotes of a node's output.
std::string_view first_line(std::string_view text) {
    for (std::string_view line : util::split_lines(text)) {
        line = util::trim(line);
        if (!line.empty()) {
            return line.substr(0, 200);
        }
    }
    return {};
}

// The shell function the wrapper runs at rendezvous_line: the node's part of `plan`, then
// rendezvous_end_line once it ended. The listener stops when the wrapper kills it, so not at a
// line on its stdin, and lives twice the bound: the others' connections start only once it
// listens.
std::string rendezvous_function(const job::RendezvousPlan& plan, std::size_t rank) {
    job::RendezvousProbe probe = job::probe_for(plan, rank, job::ProbeStart::told);
    auto* listen = std::get_if<job::RendezvousListen>(&probe.role);
    if (listen) {
        listen->stop_on_stdin = false;
        probe.bound *= 2;
    }
    std::string words;
    for (const std::string& word : job::rendezvous_command(plan.python, probe)) {
        words += util::shell_quote(word) + ' ';
    }
    constexpr std::string_view end = "printf \"\\036colossalai-rdzv-end\\n\"";
    if (listen) {
        // A subshell that says when the listener ended by itself, and at the wrapper's TERM
        // ends it and waits for it (the port is free when the job starts), saying nothing.
        return fmt::format("cai_z() {{ {{ trap 'kill $cai_q; wait $cai_q 2>/dev/null; exit' TERM; {}</dev/null "
                           "& cai_q=$!; wait $cai_q 2>/dev/null; {}; }} & cai_y=$!; }}\n",
                           words, end);
    }
    return fmt::format("cai_z() {{ {}</dev/null; {}; }}\n", words, end);
}

} // namespace

std::optional<ReadyAnswer> parse_ready_line(std::string_view line,
                                            const job::NodeCommand& command) {
    if (line == ready_line) {
        return ReadyAnswer{};
    }
    constexpr std::string_view marker = job::failed_check_marker;
    if (line.substr(0, marker.size()) != marker) {
        return std::nullopt;
    }
    if (std::optional<job::PreflightFailure> failure =
            job::parse_failed_check(line.substr(marker.size()), command)) {
        return ReadyAnswer{std::move(failure)};
    }
    return std::nullopt;
}

std::string_view login_command() {
    return loader;
}

std::string program_input(std::string_view program, const std::vector<std::string>& arguments,
                          std::string_view prelude) {
    std::string input = "{\nset --";
    for (const std::string& argument : arguments) {
        input += ' ' + util::shell_quote(argument);
    }
    input += '\n';
    input += prelude;
    input += program;
    input += "\n}\n";
    return input;
}

std::string_view node_wrapper() {
    return wrapper_text();
}

std::string wrapper_input(const job::NodeCommand& command, std::chrono::milliseconds kill_grace,
                          std::chrono::milliseconds silence_limit, ExitLine exit_line,
                          const std::optional<job::RendezvousPlan>& rendezvous) {
    long long tenths = (kill_grace.count() + 99) / 100;
    long long silence = silence_limit.count() > 0 ? (silence_limit.count() + 99) / 100 : 0;
    std::vector<std::string> arguments{
        std::to_string(tenths),
        silence == 0 ? std::string("0") : fmt::format("{}.{}", silence / 10, silence % 10),
        command.working_directory,
        command.preflight.master_address,
        fmt::format("{}", fmt::join(command.preflight.interfaces, ",")),
        exit_line == ExitLine::printed ? "1" : "0",
        job::gpu_check_word(command.preflight.gpus)};
    // The script the node checks: '' checks none (-m, no_python).
    arguments.push_back(command.preflight.script.value_or(""));
    // Whether and how the node reads its PyTorch and Python pair ('': not at all).
    arguments.push_back(std::string(job::torch_pair_word(command.preflight.torch_pair)));
    arguments.insert(arguments.end(), command.argv.begin(), command.argv.end());
    std::string prelude = environment_block(command);
    if (rendezvous) {
        prelude += rendezvous_function(*rendezvous, static_cast<std::size_t>(command.rank));
    }
    return program_input(wrapper_text(), arguments, prelude);
}

std::string ExitLineReader::feed(std::string_view bytes) {
    m_held.append(bytes);
    std::size_t start = m_held.rfind(exit_line_marker.front());
    std::size_t keep = start != std::string::npos && may_begin_exit_line(m_held.substr(start))
                           ? m_held.size() - start
                           : 0;
    std::string job = m_held.substr(0, m_held.size() - keep);
    m_held.erase(0, m_held.size() - keep);
    return job;
}

std::optional<WrapperExit> ExitLineReader::end(std::string& rest) {
    std::string held = std::exchange(m_held, {});
    std::string_view line = held;
    if (line.starts_with(exit_line_marker) && line.ends_with('\n')) {
        std::string_view value = line.substr(exit_line_marker.size());
        value.remove_suffix(1);
        if (value == silence_signal) {
            return WrapperExit{std::nullopt};
        }
        if (std::optional<int> status = util::parse_integer<int>(value)) {
            return WrapperExit{*status};
        }
    }
    rest = std::move(held);
    return std::nullopt;
}

// Whether `text` (from a marker byte on) may be the exit line or its beginning: the marker, a
// status (digits, or silence_signal's letters) and one newline at the very end.
bool ExitLineReader::may_begin_exit_line(std::string_view text) {
    std::size_t head = std::min(text.size(), exit_line_marker.size());
    if (text.substr(0, head) != exit_line_marker.substr(0, head)) {
        return false;
    }
    std::string_view value = text.substr(head);
    if (value.ends_with('\n')) {
        value.remove_suffix(1);
    }
    constexpr std::size_t longest = 11; // an int's digits, or a signal's name
    return value.size() <= longest && std::all_of(value.begin(), value.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
           });
}

std::string environment_block(const job::NodeCommand& command) {
    std::string block;
    for (const auto* variables : {&command.environment.get(), &command.flag_environment}) {
        for (const auto& [name, value] : *variables) {
            block += fmt::format("export {}={}\n", name, util::shell_quote(value));
        }
    }
    return block;
}

job::Outcome stopped_by_silence(std::chrono::milliseconds silence_limit) {
    return job::Outcome::connection_lost(fmt::format(
        "stopped by its node: nothing came from the launcher for {:g} s (was the launcher "
        "stopped by SIGSTOP, or cut off from the node?)",
        std::chrono::duration<double>(silence_limit).count()));
}

std::string login_shell_ran_nothing(std::string_view user, std::string_view printed,
                                    std::optional<int> exit_status, std::string_view what) {
    std::string status =
        exit_status ? fmt::format("exit status {}", *exit_status) : std::string("no exit status");
    std::string_view first = first_line(printed);
    if (first.empty()) {
        return fmt::format("the login shell of {} did not run {} ({}, nothing printed: a login "
                           "shell such as /usr/sbin/nologin or /bin/false runs no command)",
                           util::escape_for_message(user), what, status);
    }
    return fmt::format("the login shell of {} did not run {} ({}; it printed: {})",
                       util::escape_for_message(user), what, status,
                       util::escape_for_message(first));
}

std::string wrapper_ended_early(std::string_view printed, std::optional<int> exit_status) {
    std::string_view first = first_line(printed);
    return fmt::format("the node wrapper ended before its preflight checks{}{}{} (is /bin/sh a "
                       "POSIX shell there?)",
                       exit_status ? fmt::format(" (exit status {})", *exit_status) : "",
                       first.empty() ? "" : ": ", util::escape_for_message(first));
}

std::optional<std::string> control_line(int signo) {
    if (!exec::signal_policy::contains(exec::signal_policy::relayed_to_nodes, signo)) {
        return std::nullopt;
    }
    return fmt::format("{}\n", *util::short_signal_name(signo));
}

} // namespace colossalai::ssh
