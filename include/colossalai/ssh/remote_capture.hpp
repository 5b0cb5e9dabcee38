#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/ssh/connect.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace colossalai::ssh {

// What a short remote command printed, and how it ended.
struct RemoteOutput {
    std::string out;                // its standard output, whole
    std::string err;                // the start of its standard error (a few KiB)
    std::optional<int> exit_status; // nullopt when the node sent none (killed by a signal)
    std::string user;               // who logged in, for messages
};

// Loads libssh (lib::load): call it once before capture_remote() runs on any thread. Throws
// colossalai::Error when libssh is missing or too old.
void load_library();

// Connects to the node as connect_session() does, starts the program of `input`
// (program_input(), remote_command.hpp: whatever the login shell) with nothing more on its stdin
// (EOF) and collects its stdout until the channel ends, keeping at most `max_bytes`. Blocking;
// runs on a worker thread. Throws colossalai::Error with one line: connect_session()'s errors, a
// lost connection, or no end within `run_timeout`.
RemoteOutput capture_remote(const job::NodeCommand& node, const std::string& input,
                            const ConnectSettings& settings, std::chrono::milliseconds run_timeout,
                            std::size_t max_bytes);

} // namespace colossalai::ssh
