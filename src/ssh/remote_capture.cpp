#include "colossalai/ssh/remote_capture.hpp"

#include "libssh.hpp"
#include "session.hpp"

#include "colossalai/util/error.hpp"

#include <algorithm>
#include <array>

namespace colossalai::ssh {

void load_library() {
    lib::load();
}

RemoteOutput capture_remote(const job::NodeCommand& node, const std::string& input,
                            const ConnectSettings& settings, std::chrono::milliseconds run_timeout,
                            std::size_t max_bytes) {
    SessionPtr session = connect_session(node, settings);
    start_command(*session, input);
    lib::ssh_channel_send_eof(session->channel);
    auto deadline = std::chrono::steady_clock::now() + run_timeout;
    RemoteOutput result;
    result.user = session->user;
    constexpr std::size_t err_kept = 4096;
    std::array<char, 16384> buffer{};
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            throw fatal_error("no answer within {} s", run_timeout.count() / 1000.0);
        }
        int n = lib::ssh_channel_read_timeout(session->channel, buffer.data(), buffer.size(), 0,
                                              static_cast<int>(left.count()));
        if (n == SSH_ERROR) {
            throw fatal_error("connection lost: {}", last_error(session->session));
        }
        if (n > 0 && result.out.size() < max_bytes) {
            result.out.append(buffer.data(),
                              std::min(static_cast<std::size_t>(n), max_bytes - result.out.size()));
        }
        // Stderr is not shown, but for its start (what a login shell that runs nothing says):
        // the rest is dropped, so that its window stays open.
        int e = 0;
        while ((e = lib::ssh_channel_read_nonblocking(session->channel, buffer.data(),
                                                      buffer.size(), 1)) > 0) {
            std::size_t room = err_kept - std::min(err_kept, result.err.size());
            result.err.append(buffer.data(), std::min(room, static_cast<std::size_t>(e)));
        }
        if (n == 0 && (lib::ssh_channel_is_eof(session->channel) != 0 ||
                       lib::ssh_channel_is_closed(session->channel) != 0)) {
            break;
        }
    }
    // The exit status follows the end of the data (libssh waits for it a little).
    int status = lib::ssh_channel_get_exit_status(session->channel);
    if (status >= 0) {
        result.exit_status = status;
    }
    return result;
}

} // namespace colossalai::ssh
