#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/outcome.hpp"
#include "colossalai/job/rendezvous_check.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What runs on a remote node, and what the launcher says to it. Pure: no libssh here.
//
// sshd runs the exec request's command through the user's login shell, and login shells read
// a command line differently: fish takes `\\` and `\'` inside single quotes, tcsh and csh refuse
// a line break inside quotes and expand `!` everywhere. So the command line is one fixed line,
// login_command(), that every one of sh, bash, dash, zsh, ksh, fish, tcsh and csh runs alike:
// it makes /bin/sh read its script from stdin. The script (program_input) carries the program
// and its arguments, which so never meet the login shell: they arrive byte for byte whatever it
// is. It goes in the first write on the channel, as the environment did: no round trip of its
// own. The script is one `{ ... }` block: a shell that reads its script in blocks (dash reads 8
// KiB at a time) must read all of it before it runs any of it, so it never reads ahead into the
// lines the launcher sends later (`go`, control lines), which it sends only once the program
// answered.
//
// A node's job runs under a small POSIX sh program, the "node wrapper" (wrapper_input):
//   "$@" = <grace-tenths> <silence> <cwd> <master> <interfaces> <exit-line> <gpus> <script>
//          <torch-pair> <argv...>
// with the environment block — one `export NAME='value'` line per variable — run before it, so that
// no value ever appears in a process list. The wrapper first says it started (one line,
// started_line), runs its preflight checks and answers with one line on stdout (parse_ready_line);
// only after the launcher's `go` line does it start the job with `setsid` (its own session and
// process group, stdin /dev/null) in the working directory, and a watcher that reads the rest of
// stdin: each line `INT`, `TERM`, `HUP`, `QUIT`, `USR1`, `USR2` or `KILL` is sent to the job's
// group; EOF (the launcher is gone or the connection dropped) sends SIGTERM to the group, waits up
// to the grace period for it to empty and SIGKILLs what is left. When the job ends, the wrapper
// kills what the job left in its group and exits with the job's status (128+N for a signal).
//
// Heartbeat: any other line (the launcher sends an empty one every few seconds) only proves
// that the launcher and the network are alive. With a silence limit, a watcher that reads no
// line for that long stops the job as at EOF: a host cut off by the network gets no EOF, ever,
// and its job must not run on. The launcher cannot tell that apart from a job that failed, so
// the wrapper then ends by the signal silence_signal instead of exiting with the job's status:
// the only way it ever ends by a signal of its own.
namespace colossalai::ssh {

// The wrapper's answer on stdout after its preflight checks (job/preflight.hpp): ready, or the
// check that failed (its subject taken from `command`, an interface's name from the line).
struct ReadyAnswer {
    std::optional<job::PreflightFailure> failure; // empty: ready
};
// nullopt: not a line of the wrapper's (a login shell's noise, a broken wrapper).
std::optional<ReadyAnswer> parse_ready_line(std::string_view line, const job::NodeCommand& command);

// The wrapper's first line on stdout: it runs (the login shell ran the launcher's command).
inline constexpr std::string_view started_line = "\036colossalai-started";

// The line that starts the job once every node is ready.
inline constexpr std::string_view go_line = "go\n";

// The exec request of every remote command (the node wrapper, check's node program): one line
// that every login shell above runs alike (no quote, backslash, `!`, `$` or glob in it), which
// makes /bin/sh read its script from stdin.
std::string_view login_command();

// The script that follows login_command() on stdin: one `{ ... }` block of `set -- ARGUMENTS`
// (each quoted by util::shell_quote), `prelude` (whole lines, run first: the environment block)
// and `program` (POSIX sh text). The program runs with "$@" = `arguments` and reads what comes
// after the script on its stdin.
std::string program_input(std::string_view program, const std::vector<std::string>& arguments,
                          std::string_view prelude = {});

// The wrapper program.
std::string_view node_wrapper();

// Whether the wrapper ends its stdout with its exit line (ExitLineReader): for a transport whose
// exit status cannot tell a job's status from a lost connection (the ssh program's 255 is both).
// libssh has the exit-status request itself.
enum class ExitLine { omitted, printed };

// The line that tells a ready wrapper to run its part of the rendezvous check (the launch's
// job::RendezvousPlan, given to wrapper_input) before `go`: the listener, in the background
// until `go` or EOF kills it, or the connection, whose result line comes before the wrapper
// reads its next line. Each part answers with the probe's result lines (job::rendezvous_marker).
inline constexpr std::string_view rendezvous_line = "rdzv\n";
// The wrapper's line once its part ended by itself (after its result lines, if any); not for
// a listener the wrapper stopped.
inline constexpr std::string_view rendezvous_end_line = "\036colossalai-rdzv-end";

// What the launcher writes first on a node's channel after login_command(): the node wrapper
// with its arguments and the environment block. `silence_limit` 0: no limit (EOF only).
// `rendezvous`: the launch's rendezvous check, whose part for this node (job::probe_for, by its
// rank) runs at rendezvous_line; nullopt: none (the wrapper then never gets that line).
std::string wrapper_input(const job::NodeCommand& command, std::chrono::milliseconds kill_grace,
                          std::chrono::milliseconds silence_limit,
                          ExitLine exit_line = ExitLine::omitted,
                          const std::optional<job::RendezvousPlan>& rendezvous = std::nullopt);

// The exit line: this, then the job's status (0-255) or silence_signal (its silence limit
// stopped the job), then a newline; the last bytes of the wrapper's stdout.
inline constexpr std::string_view exit_line_marker = "\036colossalai-exit ";

// The wrapper's status as its exit line says it.
struct WrapperExit {
    std::optional<int> status; // nullopt: its silence limit stopped the job (silence_signal)
    bool operator==(const WrapperExit&) const = default;
};

// Takes the exit line off the end of a node's stdout, read in pieces as it comes: what may be
// the beginning of the line is held back until more comes (then it was the job's) or the end.
// Pure.
class ExitLineReader {
public:
    // The bytes of what came so far that are the job's output for certain.
    std::string feed(std::string_view bytes);
    // At the end of the stream: the exit line, when the stream ended with one; else nullopt
    // (the connection was lost before the wrapper ended), and `rest` takes the bytes held back,
    // which were the job's.
    std::optional<WrapperExit> end(std::string& rest);

private:
    static bool may_begin_exit_line(std::string_view text);

    std::string m_held;
};

// The environment block: one `export NAME='value'` line per variable of the node's environment
// and flag environment.
std::string environment_block(const job::NodeCommand& command);

// The signal the wrapper ends by when its silence limit stopped the job (sshd's name of it).
inline constexpr std::string_view silence_signal = "ALRM";

// A node whose wrapper ended by silence_signal: it heard nothing from the launcher for
// `silence_limit` (the launcher was stopped by SIGSTOP, or cut off) and stopped the job.
job::Outcome stopped_by_silence(std::chrono::milliseconds silence_limit);

// The failure of a node whose login shell did not run the launcher's command (nologin,
// /bin/false; or a /bin/sh that does not start): `user` logged in, the shell `printed` that
// (stdout and stderr; the first line is named) and ended with `exit_status` (nullopt: none came).
// `what`: the command, as the message names it ("the launcher's command", "the check").
std::string login_shell_ran_nothing(std::string_view user, std::string_view printed,
                                    std::optional<int> exit_status, std::string_view what);

// The failure of a node whose wrapper started and ended before its preflight answer: it
// `printed` that on stderr (the first line is named) and ended with `exit_status`.
std::string wrapper_ended_early(std::string_view printed, std::optional<int> exit_status);

// The control line that makes the wrapper send `signo` to the job ("TERM\n"), or nullopt for a
// signal the wrapper does not relay.
std::optional<std::string> control_line(int signo);

// The control line that tells the wrapper the launcher is about to be stopped (Ctrl-Z): the
// silence limit is lifted until the next line.
inline constexpr std::string_view pause_line = "PAUSE\n";

} // namespace colossalai::ssh
