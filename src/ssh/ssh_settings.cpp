#include "colossalai/ssh/ssh_transport.hpp"

#include <algorithm>

namespace colossalai::ssh {

SshSettings ssh_settings(std::chrono::milliseconds ssh_timeout,
                         std::chrono::milliseconds kill_grace) {
    SshSettings settings;
    settings.connect.timeout = ssh_timeout;
    settings.kill_grace = kill_grace;
    settings.unacked_limit = ssh_timeout;
    settings.silence_limit = 2 * ssh_timeout;
    settings.heartbeat = std::max(std::chrono::milliseconds(100), ssh_timeout / 6);
    // Twice the timeout: a host cut off by the network is reported by TCP_USER_TIMEOUT (T)
    // first, with its own reason; the keepalive catches the node that still acknowledges TCP.
    settings.keepalive_interval = settings.heartbeat;
    settings.keepalive_count = 12;
    return settings;
}

} // namespace colossalai::ssh
