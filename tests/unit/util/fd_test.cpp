#include "colossalai/util/fd.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace colossalai::util {
namespace {

bool is_open(int fd) {
    return ::fcntl(fd, F_GETFD) >= 0;
}

int open_null() {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    return fd;
}

TEST(Fd, OwnsNothingByDefault) {
    Fd none;
    EXPECT_FALSE(none);
    EXPECT_EQ(none.get(), -1);
    EXPECT_FALSE(Fd(-5)); // any negative value is "none"
    EXPECT_EQ(Fd(-5).get(), -1);
}

TEST(Fd, ClosesItsDescriptorWhenDestroyed) {
    int raw = open_null();
    {
        Fd owner(raw);
        EXPECT_TRUE(owner);
        EXPECT_EQ(owner.get(), raw);
        EXPECT_TRUE(is_open(raw));
    }
    EXPECT_FALSE(is_open(raw));
}

TEST(Fd, MovingHandsOverTheDescriptorAndLeavesTheSourceEmpty) {
    int raw = open_null();
    Fd first(raw);
    Fd second(std::move(first));
    EXPECT_FALSE(first); // NOLINT(bugprone-use-after-move): the moved-from state is the contract
    EXPECT_EQ(second.get(), raw);
    EXPECT_TRUE(is_open(raw));
}

TEST(Fd, MoveAssignmentClosesWhatTheTargetOwned) {
    int old_raw = open_null();
    int new_raw = open_null();
    Fd target(old_raw);
    Fd source(new_raw);
    target = std::move(source);
    EXPECT_FALSE(is_open(old_raw));
    EXPECT_EQ(target.get(), new_raw);
    EXPECT_TRUE(is_open(new_raw));
    Fd& self = target;
    target = std::move(self); // self-assignment keeps the descriptor
    EXPECT_EQ(target.get(), new_raw);
    EXPECT_TRUE(is_open(new_raw));
}

TEST(Fd, ReleaseGivesTheDescriptorUpWithoutClosingIt) {
    int raw = open_null();
    int released = -1;
    {
        Fd owner(raw);
        released = owner.release();
        EXPECT_FALSE(owner);
    }
    EXPECT_EQ(released, raw);
    EXPECT_TRUE(is_open(raw));
    ::close(raw);
}

TEST(Fd, ResetClosesTheOldDescriptorAndTakesTheNewOne) {
    int first = open_null();
    int second = open_null();
    Fd owner(first);
    owner.reset(second);
    EXPECT_FALSE(is_open(first));
    EXPECT_EQ(owner.get(), second);
    owner.reset(second); // the same descriptor again: kept open
    EXPECT_TRUE(is_open(second));
    owner.reset();
    EXPECT_FALSE(owner);
    EXPECT_FALSE(is_open(second));
}

TEST(Fd, CloseSaysWhetherItSucceeded) {
    Fd owner(open_null());
    int raw = owner.get();
    EXPECT_TRUE(owner.close());
    EXPECT_FALSE(owner);
    EXPECT_FALSE(is_open(raw));
    EXPECT_TRUE(owner.close()); // nothing owned: nothing to fail

    // A descriptor closed behind the owner's back: the failure is reported, with errno.
    Fd stale(open_null());
    ::close(stale.get());
    errno = 0;
    EXPECT_FALSE(stale.close());
    EXPECT_EQ(errno, EBADF);
    EXPECT_FALSE(stale);
}

TEST(Fd, OpenPipeGivesBothEndsWithTheFlags) {
    std::optional<Pipe> pipe = open_pipe(O_CLOEXEC);
    ASSERT_TRUE(pipe);
    EXPECT_NE(::fcntl(pipe->read.get(), F_GETFD) & FD_CLOEXEC, 0);
    EXPECT_NE(::fcntl(pipe->write.get(), F_GETFD) & FD_CLOEXEC, 0);
    ASSERT_EQ(::write(pipe->write.get(), "x", 1), 1);
    pipe->write.reset();
    char byte = 0;
    EXPECT_EQ(::read(pipe->read.get(), &byte, 1), 1);
    EXPECT_EQ(byte, 'x');
    EXPECT_EQ(::read(pipe->read.get(), &byte, 1), 0); // the write end is closed: EOF
}

} // namespace
} // namespace colossalai::util
