#include "colossalai/output/outlet.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <string>

namespace colossalai::output {
namespace {

std::string read_available(int fd) {
    std::string text;
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0) {
        text.append(buffer, static_cast<size_t>(n));
    }
    return text;
}

class Pipe {
public:
    Pipe() {
        if (::pipe(m_fds) != 0) {
            throw std::runtime_error("pipe");
        }
        ::fcntl(m_fds[0], F_SETFL, O_NONBLOCK);
    }
    ~Pipe() {
        close_reader();
        ::close(m_fds[1]);
    }
    int reader() const { return m_fds[0]; }
    int writer() const { return m_fds[1]; }
    void close_reader() {
        if (m_fds[0] >= 0) {
            ::close(m_fds[0]);
            m_fds[0] = -1;
        }
    }

private:
    int m_fds[2] = {-1, -1};
};

// A blocking pipe nobody reads (a pager left paused): writing never blocks, and the pipe's
// own open file description, which the launcher shares with its shell, stays blocking.
TEST(Outlet, APipeNobodyReadsNeverBlocksAndStaysBlockingForOthers) {
    Pipe pipe;
    Outlet outlet(pipe.writer(), 64 * 1024);
    std::string chunk(16 * 1024, 'p');
    for (int i = 0; i < 64; ++i) { // 1 MiB: far more than the pipe holds
        outlet.write(chunk);
    }
    EXPECT_TRUE(outlet.full());
    EXPECT_GT(outlet.queued(), 0u);
    EXPECT_EQ(::fcntl(pipe.writer(), F_GETFL) & O_NONBLOCK, 0);
    std::vector<pollfd> fds;
    outlet.collect_fds(fds);
    ASSERT_EQ(fds.size(), 1u);
    EXPECT_EQ(fds[0].events, POLLOUT);
    EXPECT_NE(fds[0].fd, pipe.writer()); // its own description of the same pipe
    std::string got;
    while (outlet.queued() > 0) {
        got += read_available(pipe.reader());
        outlet.flush_some();
    }
    got += read_available(pipe.reader());
    EXPECT_EQ(got.size(), 64u * chunk.size());
    EXPECT_EQ(got.find_first_not_of('p'), std::string::npos);
    EXPECT_FALSE(outlet.broken());
}

TEST(Outlet, KeepsTheOrderOfWhatWasQueued) {
    Pipe pipe;
    Outlet outlet(pipe.writer());
    outlet.write("prefix: ", "line\n");
    outlet.write("second\n");
    EXPECT_EQ(read_available(pipe.reader()), "prefix: line\nsecond\n");
}

TEST(Outlet, AReaderThatLeftMakesItDropEverything) {
    std::signal(SIGPIPE, SIG_IGN); // as the launcher does
    Pipe pipe;
    Outlet outlet(pipe.writer());
    pipe.close_reader();
    outlet.write("lost\n");
    EXPECT_TRUE(outlet.broken());
    EXPECT_EQ(outlet.queued(), 0u);
    std::vector<pollfd> fds;
    outlet.collect_fds(fds);
    EXPECT_TRUE(fds.empty()); // nothing to wait for
}

TEST(Outlet, AFileIsWrittenDirectly) {
    int fd = ::memfd_create("out", 0);
    {
        Outlet outlet(fd);
        outlet.write("a", "b");
        EXPECT_EQ(outlet.queued(), 0u);
        EXPECT_EQ(outlet.write_fd(), fd);
    }
    char buffer[8] = {};
    EXPECT_EQ(::pread(fd, buffer, sizeof buffer, 0), 2);
    EXPECT_EQ(std::string(buffer), "ab");
    ::close(fd);
}

TEST(Outlet, ASocketIsWrittenWithoutWaiting) {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    Outlet outlet(fds[0], 1024);
    std::string chunk(64 * 1024, 's');
    for (int i = 0; i < 64; ++i) {
        outlet.write(chunk); // more than the socket buffers hold: queued, never blocking
    }
    EXPECT_TRUE(outlet.full());
    EXPECT_EQ(outlet.write_fd(), fds[0]);
    ::close(fds[1]);
    outlet.flush_some();
    EXPECT_TRUE(outlet.broken());
    ::close(fds[0]);
}

TEST(Outlet, AClosedDescriptorIsBrokenFromTheStart) {
    int fd = ::memfd_create("gone", 0);
    ::close(fd);
    Outlet outlet(fd);
    EXPECT_TRUE(outlet.broken());
    outlet.write("nowhere\n");
    EXPECT_EQ(outlet.queued(), 0u);
}

} // namespace
} // namespace colossalai::output
