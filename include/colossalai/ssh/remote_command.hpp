#pragma once

#include "colossalai/job/node_command.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

// What runs on a remote node, and what the launcher says to it. Pure: no libssh here.
//
// The remote command is a small POSIX sh program (the "node wrapper") given to the login shell:
//   exec /bin/sh -c '<wrapper>' colossalai-node <grace-tenths> <silence> <cwd> <master>
//        <interfaces> <argv...>
// Over the channel's stdin the launcher first sends the environment block — one
// `export NAME='value'` line per variable, then a line `.` — so that no value ever appears in a
// process list. The wrapper then runs its preflight checks and answers with one line on stdout
// (parse_ready_line); only after the launcher's `go` line does it start the job with `setsid` (its
// own session and process group, stdin /dev/null) in the working directory, and a watcher that
// reads the rest of stdin: each line `INT`, `TERM`, `HUP`, `QUIT`, `USR1`, `USR2` or `KILL` is sent
// to the job's group; EOF (the launcher is gone or the connection dropped) sends SIGTERM to the
// group, waits up to the grace period for it to empty and SIGKILLs what is left. When the job ends,
// the wrapper kills what the job left in its group and exits with the job's status (128+N for a
// signal).
//
// Heartbeat: any other line (the launcher sends an empty one every few seconds) only proves
// that the launcher and the network are alive. With a silence limit, a watcher that reads no
// line for that long acts as at EOF: a host cut off by the network gets no EOF, ever, and its
// job must not run on.
namespace colossalai::ssh {

// The wrapper's first line on stdout, after its preflight checks (job/preflight.hpp): ready, or
// the check that failed (its subject taken from `command`, an interface's name from the line).
struct ReadyAnswer {
    std::optional<job::PreflightFailure> failure; // empty: ready
};
// nullopt: not a line of the wrapper's (a login shell's noise, a broken wrapper).
std::optional<ReadyAnswer> parse_ready_line(std::string_view line, const job::NodeCommand& command);

// The line that starts the job once every node is ready.
inline constexpr std::string_view go_line = "go\n";

// The wrapper program (text of `sh -c`).
std::string_view node_wrapper();

// The command line for the remote login shell. `silence_limit` 0: no limit (EOF only).
std::string remote_command(const job::NodeCommand& command, std::chrono::milliseconds kill_grace,
                           std::chrono::milliseconds silence_limit);

// The environment block: what the launcher writes first on the channel's stdin.
std::string environment_block(const job::NodeCommand& command);

// The control line that makes the wrapper send `signo` to the job ("TERM\n"), or nullopt for a
// signal the wrapper does not relay.
std::optional<std::string> control_line(int signo);

// The control line that tells the wrapper the launcher is about to be stopped (Ctrl-Z): the
// silence limit is lifted until the next line.
inline constexpr std::string_view pause_line = "PAUSE\n";

} // namespace colossalai::ssh
