#pragma once

// Private to the ssh module: the libssh objects behind a SessionPtr.

#include "colossalai/ssh/client_config.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/ssh/timing.hpp"

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

#include <memory>
#include <optional>
#include <type_traits>

namespace colossalai::ssh {

class Session {
public:
    Session() = default;
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    ssh_session session = nullptr;
    ssh_channel channel = nullptr;
    // Set by libssh's channel callbacks (on whichever thread drives the session).
    std::optional<int> exit_status;
    std::optional<std::string> exit_signal; // "TERM", "KILL", ...
    // Something arrived for the channel (data, its end, the exit status, the close) since the
    // owner last cleared it. libssh takes packets in whenever it is called (polling one
    // stream, writing), so what arrives for the other stream is announced by no descriptor.
    bool activity = false;
    // The node closed the channel (its close callback ran): libssh refuses every write from now
    // on, while what the node sent before may still wait in its buffers. Not
    // ssh_channel_is_eof(), which stays false while any of that is unread.
    bool remote_closed = false;
    ssh_channel_callbacks_struct callbacks{};
    std::string user;  // the login (the command line's, the ssh config's or ours)
    HostTiming timing; // the worker's marks (queued ... authenticated), handed over with it
    // Where the marks go from then on (the callbacks' first_output): the node session's record
    // once the launcher's loop took the session over.
    HostTiming* marks = &timing;
    ClientConfig config;           // what the ssh config says for the host beyond libssh's part
    ssh_counter_struct received{}; // packets libssh took in (ssh_set_counters), for keepalive
};

// The one place where libssh return codes become errors: `rc` is a libssh result (SSH_OK,
// SSH_ERROR, ...); anything but SSH_OK throws a runtime Error "<what>: <ssh_get_error>".
void check(int rc, ssh_session session, const char* what);

struct KeyDeleter {
    void operator()(ssh_key key) const;
};
// An ssh_key that frees itself.
using KeyPtr = std::unique_ptr<std::remove_pointer_t<ssh_key>, KeyDeleter>;

// libssh's last error text for the session.
std::string last_error(ssh_session session);

} // namespace colossalai::ssh
