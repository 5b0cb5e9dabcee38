#pragma once

// How a task's output crosses the one launcher process of a step (srun, mpirun) byte for byte,
// and says whose it is.
//
// The launcher process cannot carry a job's bytes as they are. srun (Slurm 22.05, measured; see
// docs/design.md, "the step family"): slurmstepd forwards a task's stream in messages
// of at most 1024 bytes (MAX_MSG_LEN) and holds a partial line until its newline, so a progress
// bar's `\r` states arrive only with their line's end; srun's label writer then ends every piece
// without a newline with one of its own, so piece boundaries and line ends can no longer be told
// apart. mpirun has no exact label at all (Open MPI's --tag-output loses `\r` and glues a line
// without a newline to the next task's). Both may split or merge the reads of a task's stream.
//
// So each task runs its job under a relay on the node (a small perl program, `perl -e PROGRAM
// RANK CMD ARGS...`) that reads the job's stdout and stderr as they come and writes every chunk
// as frames, whole lines that carry the node's rank themselves:
//   RANK RS PAYLOAD RS END \n
// PAYLOAD is at most frame_payload of the job's bytes with every RS (0x1e) doubled; END is `n`
// (the job's newline ended the piece) or `p` (it did not: a chunk's end, or a piece of a long
// line). The task's wrapper writes its markers in the same envelope (task_lines.hpp), so a line
// of the launcher process's output says by itself which node it belongs to, whatever label the
// launcher adds or does not. A frame is written whole (one write per chunk of frames), and a
// line is short enough for slurmstepd's messages, so it reaches the launcher at once and whole.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace colossalai::step {

// The most bytes of the job's output in one frame: doubled RS bytes, the rank (at most 9
// digits), the RS after it, the end and the newline keep a frame under slurmstepd's 1024-byte
// messages.
inline constexpr std::size_t frame_payload = 500;

// ASCII RS: it follows the rank of every line a task writes, and ends every frame.
inline constexpr char record_separator = '\x1e';

// The relay, for `perl -e`: its first argument is the node's rank (written into every frame),
// the others the job's command. It starts the job with its own stdout and stderr pipes and every
// signal at its default, frames what the pipes give until both end (or until nothing is left to
// read once the job has ended: what the job left behind running is the launcher's to end with
// the step), and exits with the job's status as sh reports it (128+N for a signal N; 127 when
// the command cannot be run). It ignores the signals of
// exec::signal_policy::delivered_to_slurm_steps itself: a step's launcher may deliver a stop to
// every process of the step, and the relay must outlive it to pass on the job's last words.
std::string_view relay_program();

// The job's bytes that one frame's body carries: `body` is what follows `RANK RS` of a line,
// without the line's newline. nullopt when it is no frame (a marker: RS `colossalai-...`).
std::optional<std::string> decode_frame(std::string_view body);

} // namespace colossalai::step
