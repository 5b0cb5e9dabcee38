#pragma once

// Private to the ssh module: one node's job over SSH, as the launcher's loop sees it.

#include "attempt.hpp"

#include "colossalai/job/process.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/timing.hpp"

#include <memory>
#include <string>
#include <vector>

namespace colossalai::ssh {

// A node whose connection `attempt` is being made (login, node wrapper) on a worker; then the
// launcher's loop reads the wrapper's preflight answer (`command` names what a failed check was
// about). Once every node is ready, go() tells the wrapper to start the job; then it streams the
// node's output into `output`, sends control lines for signals and heartbeats, and ends with the
// job's exit status or the connection's error.
std::unique_ptr<job::Process> make_ssh_process(std::shared_ptr<Attempt> attempt,
                                               const job::NodeCommand& command,
                                               output::NodeOutput& output,
                                               const SshSettings& settings,
                                               std::vector<HostTiming>& timings);

} // namespace colossalai::ssh
