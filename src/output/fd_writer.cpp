#include "colossalai/output/fd_writer.hpp"

#include <poll.h>
#include <sys/uio.h>

#include <cerrno>

namespace colossalai::output {

void FdWriter::write(std::string_view first, std::string_view second) {
    iovec parts[2] = {{const_cast<char*>(first.data()), first.size()},
                      {const_cast<char*>(second.data()), second.size()}};
    int index = 0;
    while (!m_broken && index < 2) {
        if (parts[index].iov_len == 0) {
            ++index;
            continue;
        }
        ssize_t n = ::writev(m_fd, parts + index, 2 - index);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                pollfd pfd{m_fd, POLLOUT, 0};
                ::poll(&pfd, 1, -1);
                continue;
            }
            m_broken = true; // EPIPE, EBADF, ENOSPC...: nowhere to write any more
            return;
        }
        size_t written = static_cast<size_t>(n);
        while (index < 2 && written >= parts[index].iov_len) {
            written -= parts[index].iov_len;
            parts[index].iov_len = 0;
            ++index;
        }
        if (index < 2) {
            parts[index].iov_base = static_cast<char*>(parts[index].iov_base) + written;
            parts[index].iov_len -= written;
        }
    }
}

} // namespace colossalai::output
