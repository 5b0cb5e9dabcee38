#pragma once

#include <optional>

namespace colossalai::util {

// The owner of one file descriptor (a pipe end, a pidfd, a socket, a file): closes it when it
// goes out of scope, is replaced or is moved over. Move-only. Modelled on ccache's util::Fd.
// Where a failed close() matters (data written to a file), call close() and look at its answer;
// the destructor ignores close errors, like every other release of a resource.
class Fd {
public:
    Fd() noexcept = default;
    // Takes `fd` (-1 or any negative value: owns nothing).
    explicit Fd(int fd) noexcept : m_fd(fd < 0 ? -1 : fd) {}
    Fd(Fd&& other) noexcept : m_fd(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    ~Fd();
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;

    // Whether it owns a descriptor.
    explicit operator bool() const noexcept { return m_fd >= 0; }
    // The descriptor, still owned here (-1 when none).
    int get() const noexcept { return m_fd; }
    // Gives the descriptor up without closing it; the caller owns it now.
    [[nodiscard]] int release() noexcept;
    // Closes the descriptor owned now (ignoring errors) and takes `fd` instead.
    void reset(int fd = -1) noexcept;
    // Closes the descriptor now. False when close() failed (errno says why; the descriptor is
    // released all the same, as Linux does); true when it succeeded or nothing was owned.
    bool close() noexcept;

private:
    int m_fd = -1;
};

// Both ends of a pipe.
struct Pipe {
    Fd read;
    Fd write;
};

// pipe2(`flags`, normally O_CLOEXEC). nullopt when it failed, with errno saying why.
std::optional<Pipe> open_pipe(int flags);

} // namespace colossalai::util
