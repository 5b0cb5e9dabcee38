#include "colossalai/output/outlet.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace colossalai::output {

Outlet::Outlet(int fd, std::size_t high_water)
    : m_fd(fd), m_write_fd(fd), m_high_water(high_water) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        m_broken = true; // closed: nowhere to write (main() opens /dev/null on closed streams)
        return;
    }
    m_terminal = ::isatty(fd) != 0;
    if (S_ISSOCK(info.st_mode)) {
        m_mode = Mode::socket;
        return;
    }
    if (!S_ISFIFO(info.st_mode) && !m_terminal) {
        return; // a file or /dev/null: a write never waits for a reader
    }
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) != 0) {
        m_mode = Mode::nonblocking;
        return;
    }
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    m_reopened.reset(::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (m_reopened) {
        m_write_fd = m_reopened.get();
        m_mode = Mode::nonblocking;
    } else if (errno == ENXIO) {
        m_broken = true; // a FIFO without a reader left
    }
}

void Outlet::write(std::string_view first, std::string_view second) {
    if (m_broken) {
        return;
    }
    if (queued() == 0) {
        m_queue.clear();
        m_head = 0;
    }
    m_queue.append(first);
    m_queue.append(second);
    flush_some();
}

void Outlet::collect_fds(std::vector<pollfd>& fds) const {
    if (!m_broken && queued() > 0) {
        fds.push_back({m_write_fd, POLLOUT, 0});
    }
}

void Outlet::flush_some() {
    while (!m_broken && queued() > 0) {
        const char* data = m_queue.data() + m_head;
        std::size_t size = queued();
        ssize_t n = m_mode == Mode::socket
                        ? ::send(m_write_fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL)
                        : ::write(m_write_fd, data, size);
        if (n > 0) {
            m_head += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break; // POLLOUT says when to go on
        }
        m_broken = true; // EPIPE, ENOSPC, EIO...: nowhere to write any more
    }
    if (m_broken || queued() == 0) {
        m_queue.clear();
        m_head = 0;
    } else if (m_head > m_queue.size() / 2 && m_head > 64 * 1024) {
        m_queue.erase(0, m_head); // keep the queue's memory proportional to what waits
        m_head = 0;
    }
    if (m_queue.capacity() > 4 * m_high_water && queued() < m_high_water) {
        m_queue.shrink_to_fit();
    }
}

} // namespace colossalai::output
