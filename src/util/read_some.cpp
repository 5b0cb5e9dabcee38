#include "colossalai/util/read_some.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace colossalai::util {

std::string_view read_some(Fd& fd, std::span<char> buffer) {
    while (fd) {
        ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
        if (n > 0) {
            return {buffer.data(), static_cast<std::size_t>(n)};
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return {};
        }
        fd.reset(); // EOF or a read error
    }
    return {};
}

bool polled(std::span<const pollfd> fds, const Fd& fd) {
    return fd && std::any_of(fds.begin(), fds.end(), [&](const pollfd& entry) {
               return entry.fd == fd.get() && entry.revents != 0;
           });
}

} // namespace colossalai::util
