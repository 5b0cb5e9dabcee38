#include "capture.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace colossalai::test {

using namespace std::chrono_literals;

OutputCapture::OutputCapture(bool terminal) {
    if (terminal) {
        m_read = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (m_read < 0 || ::grantpt(m_read) != 0 || ::unlockpt(m_read) != 0) {
            throw std::runtime_error("no pseudo-terminal");
        }
        m_write = ::open(::ptsname(m_read), O_RDWR | O_NOCTTY | O_CLOEXEC);
    } else {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe");
        }
        m_read = fds[0];
        m_write = fds[1];
    }
    ::fcntl(m_read, F_SETFL, O_NONBLOCK);
}

OutputCapture::~OutputCapture() {
    ::close(m_read);
    close_write();
}

void OutputCapture::close_write() {
    if (m_write >= 0) {
        ::close(m_write);
        m_write = -1;
    }
}

bool OutputCapture::read_some(std::chrono::milliseconds wait) {
    pollfd entry{m_read, POLLIN, 0};
    ::poll(&entry, 1, static_cast<int>(wait.count()));
    char buffer[65536];
    ssize_t n = ::read(m_read, buffer, sizeof buffer);
    if (n > 0) {
        m_text.append(buffer, static_cast<size_t>(n));
        return true;
    }
    // A pipe reads 0 at the end; a terminal's master EIO once the last slave is closed.
    return n < 0 && (errno == EAGAIN || errno == EINTR);
}

bool OutputCapture::read_until(const std::string& needle) {
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (m_text.find(needle) == std::string::npos) {
        if (std::chrono::steady_clock::now() >= deadline || !read_some(50ms)) {
            return m_text.find(needle) != std::string::npos;
        }
    }
    return true;
}

void OutputCapture::read_to_end() {
    auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline && read_some(50ms)) {
    }
}

} // namespace colossalai::test
