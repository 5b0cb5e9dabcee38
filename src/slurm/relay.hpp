#pragma once

// Private to the slurm module: how a task's output crosses srun byte for byte.
//
// srun with --label cannot carry a job's bytes as they are (Slurm 22.05, measured; see
// docs/design.md, "srun as one more transport"): slurmstepd forwards a task's stream in messages
// of at most 1024 bytes (MAX_MSG_LEN) and holds a partial line until its newline, so a progress
// bar's `\r` states arrive only with their line's end; srun's label writer then ends every piece
// without a newline with one of its own (a line longer than 1023 bytes, the last line without a
// newline), so piece boundaries and line ends can no longer be told apart. NUL bytes, invalid
// UTF-8 and `\r` pass unchanged.
//
// So each task runs its job under a relay on the node (a small perl program, `perl -e PROGRAM
// CMD ARGS...`) that reads the job's stdout and stderr as they come and writes every chunk as
// frames: lines of at most frame_payload of the job's bytes, RS (0x1e) doubled, ending in RS `n`
// (the job's newline ended the piece) or RS `p` (it did not: a chunk's end, or a piece of a long
// line) and a newline. slurmstepd forwards each frame at once and whole, srun labels it, and
// the launcher takes RS `p` and RS `n` off (decode_frame): the job's exact bytes, a bar's state
// as soon as the job wrote it.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace colossalai::slurm {

// The most bytes of the job's output in one frame: doubled RS bytes, the end and the newline
// keep a frame under slurmstepd's 1024-byte messages.
inline constexpr std::size_t frame_payload = 500;

// The relay, for `perl -e`: its arguments are the job's command. It starts the job with its own
// stdout and stderr pipes and every signal at its default, frames what the pipes give until both
// end (or until nothing is left to read once the job has ended: what the job left behind running
// is Slurm's to end with the step), and exits with the job's status as sh reports it (128+N for a
// signal N; 127 when the command cannot be run). It ignores the signals of
// exec::signal_policy::delivered_to_slurm_steps itself: Slurm delivers a step's signals to every
// process of the step, and the relay must outlive them to pass on the job's last words.
std::string_view relay_program();

// The job's bytes that one line of a task's stream carries: `line` as srun gave it, without its
// label and its newline. nullopt when it is no frame: a line the task's wrapper printed itself
// (its markers), or slurmstepd's own (`slurmstepd: error: *** STEP 7.0 ON node1 CANCELLED ...`).
std::optional<std::string> decode_frame(std::string_view line);

} // namespace colossalai::slurm
