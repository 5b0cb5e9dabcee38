#include "channel_streams.hpp"

#include "libssh.hpp"

#include <algorithm>
#include <string_view>

namespace colossalai::ssh {

using output::Stream;

namespace {
Stream stream_of(int is_err) {
    return is_err != 0 ? Stream::err : Stream::out;
}
} // namespace

ChannelStreams::StreamState ChannelStreams::pump(Session& session) {
    do {
        session.activity = false;
        for (int is_err = 0; is_err < 2; ++is_err) {
            if (!drain(session, is_err)) {
                return StreamState::lost;
            }
        }
    } while (session.activity);
    return StreamState::reading;
}

bool ChannelStreams::wants_input() const {
    // Also after both streams ended: the exit status and the channel close still come.
    return (m_closed[0] || m_output.accepting(Stream::out)) &&
           (m_closed[1] || m_output.accepting(Stream::err));
}

bool ChannelStreams::held_and_accepted() const {
    return (m_held[0] && m_output.accepting(Stream::out)) ||
           (m_held[1] && m_output.accepting(Stream::err));
}

void ChannelStreams::close_all() {
    for (int is_err = 0; is_err < 2; ++is_err) {
        if (!m_closed[is_err]) {
            end_stream(is_err);
        }
    }
}

bool ChannelStreams::drain(Session& session, int is_err) {
    char buffer[16384];
    Stream stream = stream_of(is_err);
    while (!m_closed[is_err]) {
        if (!m_output.accepting(stream)) {
            m_held[is_err] = true;
            return true;
        }
        m_held[is_err] = false;
        // The size libssh holds, then what a read of it got; both may also be an error or EOF.
        int n = lib::ssh_channel_poll(session.channel, is_err);
        if (n > 0) {
            n = lib::ssh_channel_read_nonblocking(
                session.channel, buffer, static_cast<uint32_t>(std::min<size_t>(sizeof buffer, n)),
                is_err);
        }
        if (n == SSH_ERROR) {
            return false;
        }
        if (n == SSH_EOF) {
            end_stream(is_err);
            return true;
        }
        if (n <= 0) {
            return true;
        }
        m_output.write(stream, std::string_view(buffer, static_cast<size_t>(n)));
    }
    return true;
}

void ChannelStreams::end_stream(int is_err) {
    m_closed[is_err] = true;
    m_output.close(stream_of(is_err));
}

} // namespace colossalai::ssh
