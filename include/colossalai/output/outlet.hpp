#pragma once

#include "colossalai/util/fd.hpp"

#include <poll.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::output {

// One of the launcher's own output streams (stdout or stderr), written without ever blocking
// the event loop: bytes go into a bounded queue and are written as the descriptor takes them.
//
// How the descriptor is written without blocking depends on what it is:
// - a regular file or a device that is not a terminal (/dev/null): plain writes, which do not
//   wait for a reader;
// - a socket: send() with MSG_DONTWAIT;
// - a pipe, FIFO or terminal: a second, non-blocking open file description of the same object
//   (/proc/self/fd/N), so that O_NONBLOCK is never set on a description the launcher shares with
//   its shell or a pager; one that is already non-blocking is used as it is. Where it cannot be
//   reopened, plain (blocking) writes, as a last resort.
// A reader that went away (EPIPE, or a write error) makes the outlet drop all further output: a
// training run outlives a pager that quit.
class Outlet {
public:
    // `high_water`: past this many queued bytes, full() tells the nodes' readers to pause.
    explicit Outlet(int fd, std::size_t high_water = 256 * 1024);
    Outlet(const Outlet&) = delete;
    Outlet& operator=(const Outlet&) = delete;

    // Queues `first` then `second` (a prefix and its line: they are never split by other
    // output) and writes what the descriptor takes at once.
    void write(std::string_view first, std::string_view second = {});

    bool full() const { return queued() >= m_high_water; }
    std::size_t queued() const { return m_queue.size() - m_head; }
    bool broken() const { return m_broken; }
    bool terminal() const { return m_terminal; }
    // The descriptor given to the constructor.
    int fd() const { return m_fd; }
    // The descriptor written to (for a terminal's size, and for identity).
    int write_fd() const { return m_write_fd; }

    // While bytes wait: the descriptor, for POLLOUT.
    void collect_fds(std::vector<pollfd>& fds) const;
    // Writes what the descriptor takes now.
    void flush_some();

private:
    enum class Mode { plain, nonblocking, socket };

    Mode m_mode = Mode::plain;
    int m_fd;
    int m_write_fd;      // m_fd, or m_reopened's descriptor
    util::Fd m_reopened; // the non-blocking copy of m_fd's file, when it was opened here
    bool m_terminal = false;
    bool m_broken = false;
    std::size_t m_high_water;
    std::string m_queue; // bytes not yet written start at m_head
    std::size_t m_head = 0;
};

} // namespace colossalai::output
