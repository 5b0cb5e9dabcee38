#include "colossalai/util/fd.hpp"

#include <unistd.h>

namespace colossalai::util {

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        reset(other.release());
    }
    return *this;
}

Fd::~Fd() {
    reset();
}

int Fd::release() noexcept {
    int fd = m_fd;
    m_fd = -1;
    return fd;
}

void Fd::reset(int fd) noexcept {
    if (m_fd >= 0 && m_fd != fd) {
        ::close(m_fd);
    }
    m_fd = fd < 0 ? -1 : fd;
}

bool Fd::close() noexcept {
    int fd = release();
    // Not retried on EINTR: Linux has released the descriptor already, and a retry could close
    // a descriptor another thread has just been given.
    return fd < 0 || ::close(fd) == 0;
}

std::optional<Pipe> open_pipe(int flags) {
    int fds[2];
    if (::pipe2(fds, flags) != 0) {
        return std::nullopt;
    }
    return Pipe{Fd(fds[0]), Fd(fds[1])};
}

} // namespace colossalai::util
