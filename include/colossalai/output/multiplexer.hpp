#pragma once

#include "colossalai/output/line_assembler.hpp"
#include "colossalai/output/outlet.hpp"
#include "colossalai/output/sink.hpp"

#include <poll.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::output {

using Clock = std::chrono::steady_clock;

// Puts the output of every node onto the launcher's stdout and stderr, never blocking: what the
// outputs do not take yet waits in their Outlet, and while an outlet is full the nodes are not
// read on that stream (their pipes or SSH windows fill and the jobs wait, as under `torchrun |
// less`). A node's output is only ever held back by the launcher's own output, never by another
// node's.
//
// Raw mode (one node): bytes pass unchanged, as they arrive — what torchrun prints.
// Prefixed mode (several nodes): every line is written whole with its prefix (`host: `), in one
// piece of the outlet's queue, so no line ever holds bytes of two nodes. A partial line waits
// for its newline, but never past `buffer_limit` bytes: then it is written as a line of its own
// and the rest follows with the prefix `host (cont.): `. A last line without a newline gets one
// when its stream closes. Progress bars (`\r` updates) stay live:
// - on a terminal, the latest state of each node's bar is drawn, with its prefix, in a block
//   of rows under the output, redrawn at most every `update_interval`; when the bar's line
//   ends, its last state is written as an ordinary line above the block;
// - elsewhere (a pipe, a file), each state is written as a prefixed line of its own, at most
//   one every `update_interval` per node and stream (the latest state waits for its turn);
//   the final state is not written twice.
// The launcher's own text (write_notice) goes to stderr, always on a line of its own.
class Multiplexer {
public:
    struct Options {
        int out_fd = 1;
        int err_fd = 2;
        bool prefixed = false;
        std::size_t buffer_limit = 32 * 1024; // the longest partial line held per node and stream
        std::size_t queue_limit = 256 * 1024; // per outlet: past it, nodes are not read
        std::chrono::milliseconds update_interval{200}; // progress bar updates
        std::function<Clock::time_point()> clock;       // steady_clock::now when empty
        // For tests: treat both outputs as terminals (or not) whatever they are, and the
        // terminal's width (else asked of the terminal, 80 when it does not say).
        std::optional<bool> terminal;
        std::optional<std::size_t> terminal_width;
    };

    explicit Multiplexer(Options options);
    ~Multiplexer();
    Multiplexer(const Multiplexer&) = delete;
    Multiplexer& operator=(const Multiplexer&) = delete;

    // The output of a new node, whose lines are prefixed with `prefix` in prefixed mode
    // (`host: `). The reference stays valid for the multiplexer's lifetime.
    NodeOutput& add_node(std::string prefix);

    // The launcher's own text (whole lines) on stderr, on lines of its own: after a line a node
    // left open in raw mode (a progress bar cut short), a newline is written first; the node's
    // bytes stay unchanged. On a terminal it goes above the progress bars.
    void write_notice(std::string_view text);

    // Whether the stream goes to a terminal (isatty, or Options::terminal).
    bool terminal(Stream stream) const;
    // Bytes of the launcher's own status line (`connecting 37/128`), queued on `stream` as they
    // are. Only before any node's output: they are not taken into account as lines or rows.
    void write_raw(Stream stream, std::string_view bytes);

    // For the launcher's poll loop, like a node's Process: the outputs waiting to be written
    // (POLLOUT), then the writes and the progress updates that are due.
    void collect_fds(std::vector<pollfd>& fds) const;
    void process_events(std::span<const pollfd> fds);
    std::optional<Clock::time_point> deadline() const;

    // Bytes queued and not yet written, over both outputs.
    std::size_t queued() const;

    // At the end: writes what is still queued, waiting for the outputs as long as it takes,
    // unless `stop_fd` (>= 0) becomes readable first (a signal to the launcher): then what is
    // left is dropped. Returns true when everything was written (or had nowhere to go).
    bool finish(int stop_fd);

private:
    class Node;
    struct Track;
    struct Channel;

    Clock::time_point now() const;
    Channel& channel(Stream stream) { return stream == Stream::out ? *m_out : *m_err; }
    void emit(Track& track, std::vector<Piece>& pieces);
    void update_bar(Track& track, bool closing);
    void show_update(Track& track, Clock::time_point when);
    void write_lines(Channel& target, std::string_view text);
    // Terminals: the bars' rows drawn again, as they are now.
    void redraw(Channel& target);
    // The terminal's width (Options::terminal_width, else asked of the terminal).
    std::size_t width_of(const Channel& target) const;

    Options m_options;
    std::unique_ptr<Channel> m_out;
    std::unique_ptr<Channel> m_err_own; // null when stderr is stdout's terminal
    Channel* m_err;
    std::vector<std::unique_ptr<Node>> m_nodes;
};

} // namespace colossalai::output
