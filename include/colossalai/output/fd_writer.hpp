#pragma once

#include <string_view>

namespace colossalai::output {

// Writes to a file descriptor completely, retrying partial writes, EINTR and EAGAIN (waiting
// for the fd when it is non-blocking). A closed reader (EPIPE) makes the writer drop all further
// output instead of failing the job: a training run outlives a pager that quit.
class FdWriter {
public:
    explicit FdWriter(int fd) : m_fd(fd) {}

    // Writes `first` then `second` with as few system calls as possible (one writev normally),
    // so that a line and its prefix are never split by another writer between them.
    void write(std::string_view first, std::string_view second = {});

    bool broken() const { return m_broken; }
    int fd() const { return m_fd; }

private:
    int m_fd;
    bool m_broken = false;
};

} // namespace colossalai::output
