#pragma once

#include "colossalai/job/outcome.hpp"

#include <optional>
#include <string>
#include <vector>

// What both SSH transports (libssh's SshProcess, the ssh program's OpenSshProcess) say to a
// running node's wrapper and make of its answer; each owns its own channel.
namespace colossalai::ssh {

// The signals relayed to a running node's job as control lines, in order.
class SignalRelay {
public:
    // Appends the control line for `signo` to `outbox` (what goes out on the channel next) and
    // remembers the signal; false for a signal the wrapper does not relay (nothing added).
    bool relay(int signo, std::string& outbox);
    // The wrapper's 128+N is "killed by signal N" when N was relayed (or KILL after it); else
    // nullopt: it is the job's own exit code, as on a local node.
    std::optional<int> relayed_signal(int status) const;

private:
    std::vector<int> m_relayed;
};

// A node given up on after SIGKILL (`running`: its job ran; `how`: what became of its
// connection, e.g. "connection closed") or before its connection was established.
job::Outcome abandoned(bool running, std::string_view how);

} // namespace colossalai::ssh
