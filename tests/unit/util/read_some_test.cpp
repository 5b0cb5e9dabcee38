#include "colossalai/util/read_some.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <string>

namespace colossalai::util {
namespace {

// A non-blocking pipe, as the launcher reads a child's output.
Pipe nonblocking_pipe() {
    std::optional<Pipe> pipe = open_pipe(O_CLOEXEC | O_NONBLOCK);
    EXPECT_TRUE(pipe);
    return pipe ? std::move(*pipe) : Pipe{};
}

TEST(ReadSome, GivesWhatWaitsThenNothingForNowThenTheEnd) {
    Pipe pipe = nonblocking_pipe();
    std::array<char, 4> buffer{};
    ASSERT_EQ(::write(pipe.write.get(), "hello", 5), 5);
    EXPECT_EQ(read_some(pipe.read, buffer), "hell"); // no more than the buffer holds
    EXPECT_EQ(read_some(pipe.read, buffer), "o");
    EXPECT_EQ(read_some(pipe.read, buffer), ""); // nothing now: still open
    EXPECT_TRUE(pipe.read);
    pipe.write.reset();
    EXPECT_EQ(read_some(pipe.read, buffer), ""); // EOF: closed
    EXPECT_FALSE(pipe.read);
    EXPECT_EQ(read_some(pipe.read, buffer), "");
}

TEST(ReadSome, PolledIsAnEventOnThatDescriptor) {
    Pipe pipe = nonblocking_pipe();
    std::array<pollfd, 2> fds{pollfd{pipe.write.get(), POLLOUT, POLLOUT},
                              pollfd{pipe.read.get(), POLLIN, 0}};
    EXPECT_TRUE(polled(fds, pipe.write));
    EXPECT_FALSE(polled(fds, pipe.read)); // listed, but no event
    EXPECT_FALSE(polled(fds, Fd()));      // none
}

} // namespace
} // namespace colossalai::util
