#pragma once

#include "colossalai/output/fd_writer.hpp"
#include "colossalai/output/sink.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::output {

// Puts the output of every node onto the launcher's stdout and stderr.
//
// Raw mode (one node): bytes are written as they arrive, unchanged — what torchrun prints.
// Prefixed mode (several nodes): each line is written whole, with its prefix (`host: `), in one
// write, so no line ever holds bytes of two nodes. A node's partial line waits for its newline;
// a line longer than the buffer limit is written in pieces while that node holds the stream,
// and the other nodes' lines wait (their buffers fill and they stop being read) until it ends.
// A last line without a newline gets one when its stream closes.
class Multiplexer {
public:
    struct Options {
        int out_fd = 1;
        int err_fd = 2;
        bool prefixed = false;
        std::size_t buffer_limit = 32 * 1024; // per node and stream
    };

    explicit Multiplexer(Options options);
    ~Multiplexer();
    Multiplexer(const Multiplexer&) = delete;
    Multiplexer& operator=(const Multiplexer&) = delete;

    // The output of a new node, whose lines are prefixed with `prefix` in prefixed mode. The
    // reference stays valid for the multiplexer's lifetime.
    NodeOutput& add_node(std::string prefix);

    // Ends the line a node left open on `stream` (raw mode: its last bytes were not a newline,
    // say a progress bar), so that the launcher's own text written next starts on a line of its
    // own. The node's bytes stay as they were; a newline follows them. In prefixed mode lines
    // are always whole when they are written: nothing to do.
    void end_open_line(Stream stream);

private:
    class Node;
    struct Channel {
        FdWriter writer;
        std::optional<std::size_t> owner; // node in the middle of a long line
        bool line_open = false;           // raw mode: the last byte written was not a newline
    };

    Channel& channel(Stream stream) { return stream == Stream::out ? m_out : m_err; }
    // Writes every complete line the nodes have buffered, while the stream is free.
    void drain(Stream stream);
    void drain_node(Node& node, Stream stream);

    Options m_options;
    Channel m_out;
    Channel m_err;
    std::vector<std::unique_ptr<Node>> m_nodes;
};

} // namespace colossalai::output
