#pragma once

// Private to the ssh module: a node's session over a libssh channel.

#include "attempt.hpp"

#include "colossalai/job/process.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/timing.hpp"

#include <memory>
#include <vector>

namespace colossalai::ssh {

// A node whose connection `attempt` is being made (login, node wrapper) on a worker; then the
// launcher's loop reads the wrapper's preflight answer from the channel (`command` names what a
// failed check was about), and the node session (node_session.hpp) runs the wrapper protocol
// over it: the job's output into `output`, its end from the channel's exit status or signal.
// libssh's own part: a keepalive request every keepalive interval (KeepaliveWatch), a TCP user
// timeout of settings.unacked_limit, the data libssh took in unannounced (has_work), a blocking
// flush before the launcher stops.
std::unique_ptr<job::Process> make_libssh_session(std::shared_ptr<Attempt> attempt,
                                                  const job::NodeCommand& command,
                                                  output::NodeOutput& output,
                                                  const SshSettings& settings,
                                                  std::vector<HostTiming>& timings);

} // namespace colossalai::ssh
