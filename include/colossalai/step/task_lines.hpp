#pragma once

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/output/sink.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

// The protocol between each task's wrapper on its node and the launcher, whatever one launcher
// process (srun, mpirun) carries the tasks' output: every line a task writes, on stdout and on
// stderr, begins with its node's rank and RS (`RANK RS BODY`), so that the launcher reads whose
// it is from the line itself. BODY is a frame of the job's output (relay.hpp) or one of the
// wrapper's markers, which begin with RS (a frame's own RS bytes are doubled: never one):
//   start:  RS `colossalai-task-start HANDLE NODE` (HANDLE: what the engine's stop delivery
//           names the step by, Slurm's `JOB.STEP`; NODE: the scheduler's name of the node)
//   failed: job::failed_check_marker `WHAT` (the preflight's failed check, as over SSH)
//   ready:  RS `colossalai-task-ready` (its preflight passed and it waits to be let go: mpirun's
//           tasks, so that one task's failure stops them all before any job starts)
//   notice: job::notice_marker `WHAT` (what the preflight notices, as over SSH: a known-broken
//           PyTorch and Python pair; fails nothing)
//   exit:   RS `colossalai-task-exit STATUS` (the job's status as sh reports it)
//   rdzv:   a result line of the rendezvous check's program (job::rendezvous_marker ...), which
//           the task runs after its preflight (rendezvous_check_shell)
// Pure, on whole lines (without their newline).
namespace colossalai::step {

inline constexpr std::string_view task_start_marker = "\x1e"
                                                      "colossalai-task-start ";
inline constexpr std::string_view task_exit_marker = "\x1e"
                                                     "colossalai-task-exit ";
inline constexpr std::string_view task_ready_marker = "\x1e"
                                                      "colossalai-task-ready";

// The shell commands of a task's wrapper that write its lines (for `sh`; `rank`, `handle`,
// `node` and `status` are shell words, e.g. `"$r"`): the start marker, on stdout then stderr; the
// function `cai_f WHAT` that names a failed check, writes the exit marker with
// job::preflight_exit_status on both streams and exits with it (unless the task was stopped,
// `cai_x` set: then it exits 0 with no marker, not started); the exit marker on both streams.
std::string start_marker_shell(std::string_view rank, std::string_view handle,
                               std::string_view node);
std::string failed_check_shell(std::string_view rank);
std::string exit_marker_shell(std::string_view rank, std::string_view status);
// The ready marker, on stdout.
std::string ready_marker_shell(std::string_view rank);
// The function `cai_note WHAT` that writes the notice marker on stdout (and returns).
std::string notice_shell(std::string_view rank);
// The rendezvous check of a task (job::ProbeStart::together: the tasks have no go line),
// after its preflight: runs `probe` (a shell command: the task's job::rendezvous_command, its
// listener's or its connection's), passes each result line on with the rank, and when the
// program failed with a result (is_failure: it exits 1) writes the exit marker with
// job::preflight_exit_status on both streams and exits with it, the job not started. A program
// that printed no result (not Python 3.6 or newer) is no check: the task goes on, unless a
// signal ended it (status above 128: the launcher's stop), when the task exits with that status.
// A task stopped while its program ran (`cai_x` set, as for cai_f) exits 0 with no line, not
// started.
std::string rendezvous_check_shell(std::string_view rank, std::string_view probe);

// What one line of a task says, read from the line alone.
struct Frame { // the job's bytes, from its stream `stream`
    std::size_t rank = 0;
    output::Stream stream = output::Stream::out;
    std::string bytes;
};
struct Started { // the task named its step and its node
    std::size_t rank = 0;
    std::string handle; // copies: the value outlives the line it was read from
    std::string node;
};
struct Failed { // its preflight failed: `what` as job::parse_failed_check reads it
    std::size_t rank = 0;
    std::string what;
};
struct Ready { // its preflight passed; it waits for the engine's Engine::release
    std::size_t rank = 0;
};
struct Noticed { // its preflight noticed `what` (job::describe_node_notice reads it)
    std::size_t rank = 0;
    std::string what;
};
struct Exited { // its job ended with `status`; the stream ends here
    std::size_t rank = 0;
    int status = 0;
};
struct Foreign { // no line of a task's: the launcher's own, slurmstepd's, a wrapper's error
    std::string_view text;
};
struct Rendezvous { // a result of its rendezvous check
    std::size_t rank = 0;
    job::RendezvousResult result;
};
using TaskLine = std::variant<Frame, Started, Failed, Ready, Noticed, Exited, Rendezvous, Foreign>;

// Reads `line` (without its newline). A marker that does not parse (an exit marker without a
// number, a start marker without a handle) is Foreign, the whole line.
TaskLine read_task_line(std::string_view line);

// How a task ended, from its wrapper's answers: its failed preflight or rendezvous check (its
// command was not started), else its job's status as sh reports it. sh reports a job killed by
// signal N and one that exited with 128+N alike: 128+N is `killed` only when the launcher delivered
// N to the step
// (`delivered`), as the SSH transport reads its wrapper's status, else the job's own exit code.
// Why a task's command was not started: its failed preflight check, or its rendezvous check's
// failed result.
using TaskFailure = std::variant<job::PreflightFailure, job::RendezvousResult>;
job::Outcome task_outcome(const std::optional<TaskFailure>& failure, int exit_status,
                          const std::set<int>& delivered);

} // namespace colossalai::step
