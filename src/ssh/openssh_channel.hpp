#pragma once

// Private to the ssh module: a node's session over the `ssh` program's pipes.

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/timing.hpp"

#include <memory>
#include <string>
#include <vector>

namespace colossalai::ssh {

// The node session (node_session.hpp) over `ssh`, a child of the launcher that connects while
// the wrapper's answer is awaited (due twice the connect timeout after the start: ssh's connect,
// then the answer's own wait): `input` (wrapper_input with ExitLine::printed) and the control
// lines on its stdin; the answer, then the job's output with the wrapper's exit line at its end,
// on its stdout; its own messages, then the job's, on stderr. Before the answer, stderr is read
// and its first 4 KiB kept (written to the node's stderr at go, and the reason of a failure), and
// stdout is read in chunks, what follows the answer held until go. A node that ends before its
// answer: ssh's wait status says why (255 before the wrapper started: ssh's own failure, its last
// line on stderr). The job's end: the exit line, once ssh ended; without it the connection was
// lost. Closing kills ssh (SIGKILL) unless it ended, and reaps it.
std::unique_ptr<job::Process> make_openssh_session(exec::SpawnedJob ssh,
                                                   const job::NodeCommand& command,
                                                   output::NodeOutput& output,
                                                   const SshSettings& settings, std::string input,
                                                   std::vector<HostTiming>& timings);

} // namespace colossalai::ssh
