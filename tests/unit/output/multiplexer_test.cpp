#include "colossalai/output/multiplexer.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace colossalai::output {
namespace {

using namespace std::chrono_literals;

// An in-memory file standing in for the launcher's stdout or stderr.
class MemFile {
public:
    MemFile() : m_fd(::memfd_create("out", 0)) {}
    ~MemFile() { ::close(m_fd); }
    int fd() const { return m_fd; }
    std::string content() const {
        std::string text;
        char buffer[65536];
        off_t offset = 0;
        ssize_t n;
        while ((n = ::pread(m_fd, buffer, sizeof buffer, offset)) > 0) {
            text.append(buffer, static_cast<size_t>(n));
            offset += n;
        }
        return text;
    }

private:
    int m_fd;
};

struct Fixture {
    MemFile out;
    MemFile err;
    Clock::time_point now{};
    Multiplexer make(bool prefixed, size_t limit = 16, bool terminal = false) {
        Multiplexer::Options options;
        options.out_fd = out.fd();
        options.err_fd = err.fd();
        options.prefixed = prefixed;
        options.buffer_limit = limit;
        options.clock = [this] { return now; };
        options.terminal = terminal;
        options.terminal_width = 20;
        return Multiplexer(options);
    }
    // Lets time pass and the multiplexer act on what became due.
    void pass(Multiplexer& mux, std::chrono::milliseconds time) {
        now += time;
        mux.process_events({});
    }
};

TEST(MultiplexerRaw, PassesBytesThroughUnchanged) {
    Fixture f;
    Multiplexer mux = f.make(false);
    NodeOutput& node = mux.add_node("h: ");
    node.write(Stream::out, "partial");
    EXPECT_EQ(f.out.content(), "partial"); // written at once, no waiting for the newline
    node.write(Stream::out, std::string("\xff\xfe bytes\r\n", 10));
    node.write(Stream::err, "\r 10%\r 20%");
    node.close(Stream::out);
    node.close(Stream::err);
    EXPECT_EQ(f.out.content(), std::string("partial\xff\xfe bytes\r\n", 17));
    EXPECT_EQ(f.err.content(), "\r 10%\r 20%"); // a bar passes as it is, too
    EXPECT_TRUE(node.accepting(Stream::out));
}

TEST(MultiplexerRaw, EndsAnOpenLineBeforeTheLaunchersText) {
    Fixture f;
    Multiplexer mux = f.make(false);
    NodeOutput& node = mux.add_node("h: ");
    mux.write_notice("colossalai: first\n"); // nothing written yet: nothing to end
    node.write(Stream::err, "\r 50%");
    node.write(Stream::out, "line\n");
    mux.write_notice("colossalai: second\n");
    mux.write_notice("colossalai: third\n");
    EXPECT_EQ(f.err.content(),
              "colossalai: first\n\r 50%\ncolossalai: second\ncolossalai: third\n");
    EXPECT_EQ(f.out.content(), "line\n");
    node.write(Stream::err, "");
    mux.write_notice("x\n"); // an empty write changes nothing
    EXPECT_EQ(f.err.content(),
              "colossalai: first\n\r 50%\ncolossalai: second\ncolossalai: third\nx\n");
}

TEST(MultiplexerPrefixed, WritesWholeLinesWithTheirPrefix) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    a.write(Stream::out, "one ");
    b.write(Stream::out, "uno ");
    a.write(Stream::out, "two\nthree");
    b.write(Stream::out, "dos\n");
    a.write(Stream::out, "\n");
    EXPECT_EQ(f.out.content(), "a: one two\nb: uno dos\na: three\n");
    EXPECT_EQ(f.err.content(), "");
}

// A node named late (srun's allocation): the lines after set_prefix carry the name.
TEST(MultiplexerPrefixed, ANewPrefixAppliesToTheLinesAfterIt) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("(node 0): ");
    a.write(Stream::out, "before\n");
    a.set_prefix("gpu7: ");
    a.write(Stream::out, "after\n");
    EXPECT_EQ(f.out.content(), "(node 0): before\ngpu7: after\n");
}

TEST(MultiplexerPrefixed, APartialLineWaitsForItsNewlineAndGetsOneAtTheEnd) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    a.write(Stream::err, "no newline");
    mux.write_notice("colossalai: notice\n"); // never glued to a node's partial line
    EXPECT_EQ(f.err.content(), "colossalai: notice\n");
    a.close(Stream::err);
    EXPECT_EQ(f.err.content(), "colossalai: notice\na: no newline\n");
    a.close(Stream::out); // nothing was written: nothing appears
    EXPECT_EQ(f.out.content(), "");
}

// The deadlock of issue #8: a node's unfinished line must never hold the other nodes' lines.
TEST(MultiplexerPrefixed, NoNodeWaitsForAnotherNodesLongLine) {
    Fixture f;
    Multiplexer mux = f.make(true, 16);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    std::string long_line(40, 'x');
    a.write(Stream::out, long_line.substr(0, 10)); // held: under the limit
    b.write(Stream::out, "short\n");               // written at once
    EXPECT_EQ(f.out.content(), "b: short\n");
    a.write(Stream::out, long_line.substr(10)); // past the limit: out as a line of its own
    EXPECT_EQ(f.out.content(), "b: short\na: " + long_line + "\n");
    b.write(Stream::out, "more\n");
    a.write(Stream::out, "yz\nafter\n");
    EXPECT_EQ(f.out.content(),
              "b: short\na: " + long_line + "\nb: more\na (cont.): yz\na: after\n");
    EXPECT_TRUE(a.accepting(Stream::out));
    EXPECT_TRUE(b.accepting(Stream::out));
}

TEST(MultiplexerPrefixed, StreamsAreIndependent) {
    Fixture f;
    Multiplexer mux = f.make(true, 8);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    a.write(Stream::out, "0123");
    b.write(Stream::err, "err line\n");
    EXPECT_EQ(f.err.content(), "b: err line\n");
    EXPECT_EQ(f.out.content(), "");
}

TEST(MultiplexerPrefixed, KeepsEveryByteOfBinaryLines) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    std::string bytes("\x00\x01\xc3\x28\xff\r", 6);
    a.write(Stream::out, bytes + "\n");
    EXPECT_EQ(f.out.content(), "a: " + bytes + "\n");
}

// In a pipe or a file: each state of a bar becomes a prefixed line, at most one per interval.
TEST(MultiplexerProgress, APipeGetsEachStateAsALineAtMostOnePerInterval) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    f.now += 1s;
    a.write(Stream::err, "\r 10%");
    EXPECT_EQ(f.err.content(), "a:  10%\n"); // the first state at once
    a.write(Stream::err, "\r 20%");
    a.write(Stream::err, "\r 30%");
    EXPECT_EQ(f.err.content(), "a:  10%\n"); // too soon: the latest state waits its turn
    ASSERT_TRUE(mux.deadline().has_value());
    EXPECT_EQ(*mux.deadline(), f.now + 200ms);
    b.write(Stream::err, "b line\n"); // other nodes' lines never wait for it
    f.pass(mux, 100ms);
    EXPECT_EQ(f.err.content(), "a:  10%\nb: b line\n");
    f.pass(mux, 100ms);
    EXPECT_EQ(f.err.content(), "a:  10%\nb: b line\na:  30%\n"); // 20% was replaced
    EXPECT_FALSE(mux.deadline().has_value());
    f.pass(mux, 1s);
    a.write(Stream::err, "\r 30%"); // the same state again: nothing new to say
    a.write(Stream::err, "\n");     // the final state was shown already
    EXPECT_EQ(f.err.content(), "a:  10%\nb: b line\na:  30%\n");
    a.write(Stream::err, "\r 40%\r 50%\n"); // a final state not shown yet is written
    EXPECT_EQ(f.err.content(), "a:  10%\nb: b line\na:  30%\na:  50%\n");
}

// On a terminal: the bars' latest states in a block of rows under the lines.
TEST(MultiplexerProgress, ATerminalGetsABlockOfRowsRedrawnAtMostOncePerInterval) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024, true);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    NodeOutput& c = mux.add_node("c: ");
    f.now += 1s;
    a.write(Stream::err, "\r 10%");
    EXPECT_EQ(f.err.content(), "a:  10%");
    b.write(Stream::err, "\r 60%"); // within the interval: drawn when it ends
    EXPECT_EQ(f.err.content(), "a:  10%");
    f.pass(mux, 200ms);
    std::string screen = "a:  10%\r\x1b[Ja:  10%\nb:  60%";
    EXPECT_EQ(f.err.content(), screen);
    c.write(Stream::err, "a line\n"); // a line goes above the block, which is drawn again
    screen += "\r\x1b[A\x1b[Jc: a line\na:  10%\nb:  60%";
    EXPECT_EQ(f.err.content(), screen);
    a.write(Stream::err, "\r100%\n"); // the bar's line ends: its last state stays as a line
    screen += "\r\x1b[A\x1b[Ja: 100%\nb:  60%";
    EXPECT_EQ(f.err.content(), screen);
    b.close(Stream::err); // the other bar ends with its stream
    screen += "\r\x1b[Jb:  60%\n";
    EXPECT_EQ(f.err.content(), screen);
    EXPECT_TRUE(mux.finish(-1));
    EXPECT_EQ(f.err.content(), screen); // no rows left to erase
}

TEST(MultiplexerProgress, ATerminalRowIsCutToTheTerminalsWidth) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024, true);
    NodeOutput& a = mux.add_node("a: ");
    f.now += 1s;
    a.write(Stream::out, "\r" + std::string(40, '#'));
    EXPECT_EQ(f.out.content(), "a: " + std::string(16, '#')); // 19 columns of 20
    EXPECT_TRUE(mux.finish(-1));
    EXPECT_EQ(f.out.content(), "a: " + std::string(16, '#') + "\r\x1b[J");
}

// The launcher's own output full: the nodes are not read on that stream, until it drains.
TEST(MultiplexerBackpressure, AFullOutputPausesTheNodesUntilItDrains) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
    MemFile err;
    Multiplexer::Options options;
    options.out_fd = fds[1];
    options.err_fd = err.fd();
    options.prefixed = true;
    options.queue_limit = 4096;
    Multiplexer mux(options);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    std::string line(1000, 'x');
    line += '\n';
    size_t lines = 0;
    while (a.accepting(Stream::out) && lines < 10000) { // never blocks
        a.write(Stream::out, line);
        ++lines;
    }
    ASSERT_LT(lines, 10000u);
    EXPECT_FALSE(b.accepting(Stream::out)); // the output is full for every node
    EXPECT_TRUE(b.accepting(Stream::err));  // but not the other stream
    std::vector<pollfd> poll_fds;
    mux.collect_fds(poll_fds);
    ASSERT_EQ(poll_fds.size(), 1u);
    EXPECT_EQ(poll_fds[0].events, POLLOUT);
    std::string read;
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
        read.append(buffer, static_cast<size_t>(n));
    }
    poll_fds[0].revents = POLLOUT;
    mux.process_events(poll_fds);
    EXPECT_TRUE(a.accepting(Stream::out));
    EXPECT_EQ(mux.queued(), 0u); // the rest fitted into the emptied pipe
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
        read.append(buffer, static_cast<size_t>(n));
    }
    std::string expected;
    for (size_t i = 0; i < lines; ++i) {
        expected += "a: " + line;
    }
    EXPECT_EQ(read.size(), expected.size());
    EXPECT_TRUE(read == expected);
    ::close(fds[0]);
    ::close(fds[1]);
}

// `2>&1` into a pipe: a line the pipe takes only in part is finished before a line of the
// other stream starts, and their order is kept.
TEST(MultiplexerBackpressure, StdoutAndStderrOnOnePipeNeverMixALine) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
    Multiplexer::Options options;
    options.out_fd = fds[1];
    options.err_fd = fds[1];
    options.prefixed = true;
    options.buffer_limit = 1 << 20;
    Multiplexer mux(options);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    std::string long_line(200 * 1024, 'o'); // more than the pipe holds: written in parts
    a.write(Stream::out, long_line + "\n");
    b.write(Stream::err, "an error\n");
    a.write(Stream::err, "another\n");
    std::string read;
    char buffer[65536];
    while (mux.queued() > 0) {
        ssize_t n;
        while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
            read.append(buffer, static_cast<size_t>(n));
        }
        std::vector<pollfd> poll_fds;
        mux.collect_fds(poll_fds);
        ASSERT_EQ(poll_fds.size(), 1u); // one queue for both streams
        poll_fds[0].revents = POLLOUT;
        mux.process_events(poll_fds);
    }
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
        read.append(buffer, static_cast<size_t>(n));
    }
    EXPECT_TRUE(read == "a: " + long_line + "\nb: an error\na: another\n");
    ::close(fds[0]);
    ::close(fds[1]);
}

} // namespace
} // namespace colossalai::output
