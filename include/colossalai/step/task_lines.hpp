#pragma once

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/preflight.hpp"

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
//   exit:   RS `colossalai-task-exit STATUS` (the job's status as sh reports it)
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
// job::preflight_exit_status on both streams and exits with it; the exit marker on both streams.
std::string start_marker_shell(std::string_view rank, std::string_view handle,
                               std::string_view node);
std::string failed_check_shell(std::string_view rank);
std::string exit_marker_shell(std::string_view rank, std::string_view status);
// The ready marker, on stdout.
std::string ready_marker_shell(std::string_view rank);

// What one line of a task says, read from the line alone.
struct Frame { // the job's bytes
    std::size_t rank = 0;
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
struct Exited { // its job ended with `status`; the stream ends here
    std::size_t rank = 0;
    int status = 0;
};
struct Foreign { // no line of a task's: the launcher's own, slurmstepd's, a wrapper's error
    std::string_view text;
};
using TaskLine = std::variant<Frame, Started, Failed, Ready, Exited, Foreign>;

// Reads `line` (without its newline). A marker that does not parse (an exit marker without a
// number, a start marker without a handle) is Foreign, the whole line.
TaskLine read_task_line(std::string_view line);

// How a task ended, from its wrapper's answers: its failed preflight (its command was not
// started), else its job's status as sh reports it. sh reports a job killed by signal N and one
// that exited with 128+N alike: 128+N is `killed` only when the launcher delivered N to the step
// (`delivered`), as the SSH transport reads its wrapper's status, else the job's own exit code.
job::Outcome task_outcome(const std::optional<job::PreflightFailure>& failure, int exit_status,
                          const std::set<int>& delivered);

} // namespace colossalai::step
