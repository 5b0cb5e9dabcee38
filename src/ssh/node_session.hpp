#pragma once

// Private to the ssh module: one node's job over SSH as the launcher's loop sees it, whichever
// client carries it: the wrapper protocol (remote_command.hpp) as one state machine over a
// NodeChannel (node_channel.hpp).

#include "node_channel.hpp"

#include "colossalai/job/node_command.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/timing.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::ssh {

// The node's session. Phases (WrapperPhase): connecting (a channel that is not started() is
// opened by a worker) -> checking (the wrapper's preflight answer is read; due `answer_timeout`
// after the channel opened) -> connected (ready: waits for go) -> running (`go` written; control
// lines for signals, a heartbeat every settings.heartbeat, PAUSE before the launcher stops) ->
// the result: the wrapper's end read against the signals relayed, the channel's own end (a lost
// connection), or the preflight's failure. Stop or kill before go: `not_started` (the wrapper
// reads EOF instead of `go`). `input`: what the wrapper reads first on this channel (none when
// the worker sent it). A node whose job ran leaves its HostTiming in `timings`; `command` names
// what a failed check was about.
std::unique_ptr<job::Process> make_node_session(std::unique_ptr<NodeChannel> channel,
                                                const job::NodeCommand& command,
                                                std::chrono::milliseconds answer_timeout,
                                                const SshSettings& settings, std::string input,
                                                std::vector<HostTiming>& timings);

} // namespace colossalai::ssh
