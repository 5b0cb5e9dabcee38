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
// RANK CHANNEL CMD ARGS...`) that reads the job's stdout and stderr as they come and writes every
// chunk as frames, whole lines that carry the node's rank and the job's stream themselves:
//   RANK RS PAYLOAD RS END \n
// PAYLOAD is at most frame_payload of the job's bytes with every RS (0x1e) doubled; END is `n`
// (the job's newline ended the piece) or `p` (it did not: a chunk's end, or a piece of a long
// line) for the job's stdout, `N` or `P` for its stderr. The task's wrapper writes its markers in
// the same envelope (task_lines.hpp), so a line of the launcher process's output says by itself
// which node it belongs to, whatever label the launcher adds or does not. A line is short enough
// for slurmstepd's messages, so it reaches srun at once and whole.
//
// mpirun's daemons do not forward lines: they read a task's output in chunks (Open MPI 4.1's
// orted 4096 bytes, ORTE_IOF_BASE_MSG_MAX; Hydra's proxy 64 KiB) and mpirun writes each chunk
// whole among the other tasks' chunks, so a frame cut by a read was cut in two and mixed with
// another node's (measured: a burst of tens of KB lost frames). Open MPI's task stdout is a
// pseudo-terminal, whose reads may cut any write; its stderr, like Hydra's, is a pipe. So for
// mpirun the relay writes every frame, of both of the job's streams, on its stderr in packet mode
// (O_DIRECT, Linux 3.4): each frame one write of at most PIPE_BUF bytes, one packet, which a read
// returns whole and alone, whatever the page size and however slow the daemon.

#include "colossalai/output/sink.hpp"

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

// Where a task's relay writes its frames (its CHANNEL argument, relay_argument).
enum class RelayChannel {
    own_streams, // each of the job's streams on the relay's own (srun: slurmstepd forwards lines)
    stderr_packets, // both on its stderr, one packet per frame when it is a pipe (mpirun)
};

// The relay's CHANNEL argument.
std::string_view relay_argument(RelayChannel channel);

// The relay, for `perl -e`: its first argument is the node's rank (written into every frame),
// its second its channel (relay_argument), the others the job's command. It starts the job with its
// own stdout and stderr pipes and every signal at its default, frames what the pipes give until
// both end (or until nothing is left to read once the job has ended: what the job left behind
// running is the launcher's to end with the step), and exits with the job's status as sh reports it
// (128+N for a signal N; 127 when the command cannot be run). It ignores the signals of
// exec::signal_policy::delivered_to_slurm_steps itself: a step's launcher may deliver a stop to
// every process of the step, and the relay must outlive it to pass on the job's last words.
std::string_view relay_program();

// What one frame carries: the job's bytes, and which of its streams they are from.
struct FrameBytes {
    output::Stream stream = output::Stream::out;
    std::string bytes;
    bool operator==(const FrameBytes&) const = default;
};

// The job's bytes that one frame's body carries: `body` is what follows `RANK RS` of a line,
// without the line's newline. nullopt when it is no frame (a marker: RS `colossalai-...`).
std::optional<FrameBytes> decode_frame(std::string_view body);

} // namespace colossalai::step
