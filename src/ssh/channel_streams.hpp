#pragma once

// Private to the ssh module: a running channel's stdout and stderr, read into a node's output.

#include "session.hpp"

#include "colossalai/output/sink.hpp"

namespace colossalai::ssh {

class ChannelStreams {
public:
    explicit ChannelStreams(output::NodeOutput& output) : m_output(output) {}

    enum class StreamState { reading, lost };

    // Reads what libssh holds or takes in for both streams, as far as the output accepts it.
    // libssh takes in packets whenever it is called: polling stderr may bring stdout's data or
    // end, which no descriptor announces any more (Session::activity tells). So passes go on
    // until one takes in nothing new. `lost`: a libssh call failed; the caller decides.
    StreamState pump(Session& session);

    // Both streams ended (or were closed by close_all).
    bool ended() const { return m_closed[0] && m_closed[1]; }
    // The output accepts every stream still open: the socket may be read.
    bool wants_input() const;
    // Data waits in libssh for a stream the output did not accept, and now accepts.
    bool held_and_accepted() const;
    // Ends both streams for the output (the node ended or was given up).
    void close_all();

private:
    bool drain(Session& session, int is_err); // false when a libssh call failed
    void end_stream(int is_err);

    output::NodeOutput& m_output;
    bool m_closed[2] = {false, false};
    bool m_held[2] = {false, false};
};

} // namespace colossalai::ssh
