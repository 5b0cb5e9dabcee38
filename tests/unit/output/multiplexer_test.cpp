#include "colossalai/output/multiplexer.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace colossalai::output {
namespace {

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
    Multiplexer make(bool prefixed, size_t limit = 16) {
        return Multiplexer({out.fd(), err.fd(), prefixed, limit});
    }
};

TEST(MultiplexerRaw, PassesBytesThroughUnchanged) {
    Fixture f;
    Multiplexer mux = f.make(false);
    NodeOutput& node = mux.add_node("h: ");
    node.write(Stream::out, "partial");
    EXPECT_EQ(f.out.content(), "partial"); // written at once, no waiting for the newline
    node.write(Stream::out, std::string("\xff\xfe bytes\r\n", 10));
    node.write(Stream::err, "e");
    node.close(Stream::out);
    node.close(Stream::err);
    EXPECT_EQ(f.out.content(), std::string("partial\xff\xfe bytes\r\n", 17));
    EXPECT_EQ(f.err.content(), "e");
    EXPECT_TRUE(node.accepting(Stream::out));
}

TEST(MultiplexerRaw, EndsAnOpenLineBeforeTheLaunchersText) {
    Fixture f;
    Multiplexer mux = f.make(false);
    NodeOutput& node = mux.add_node("h: ");
    mux.end_open_line(Stream::err); // nothing written yet: nothing to end
    node.write(Stream::err, "\r 50%");
    node.write(Stream::out, "line\n");
    mux.end_open_line(Stream::err);
    mux.end_open_line(Stream::err); // once only
    mux.end_open_line(Stream::out); // ended by the node itself
    EXPECT_EQ(f.err.content(), "\r 50%\n");
    EXPECT_EQ(f.out.content(), "line\n");
    node.write(Stream::err, "");
    mux.end_open_line(Stream::err); // an empty write changes nothing
    EXPECT_EQ(f.err.content(), "\r 50%\n");
}

TEST(MultiplexerPrefixed, LinesAreNeverLeftOpen) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& node = mux.add_node("h: ");
    node.write(Stream::err, "partial");
    mux.end_open_line(Stream::err);
    EXPECT_EQ(f.err.content(), ""); // the partial line waits for its newline, as before
    node.close(Stream::err);
    EXPECT_EQ(f.err.content(), "h: partial\n");
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

TEST(MultiplexerPrefixed, EndsALastLineWithoutNewlineWhenTheStreamCloses) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    a.write(Stream::err, "no newline");
    EXPECT_EQ(f.err.content(), "");
    a.close(Stream::err);
    EXPECT_EQ(f.err.content(), "a: no newline\n");
    a.close(Stream::out); // nothing was written: nothing appears
    EXPECT_EQ(f.out.content(), "");
}

TEST(MultiplexerPrefixed, KeepsALongLineWholeWhileOthersWait) {
    Fixture f;
    Multiplexer mux = f.make(true, 16);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    std::string long_line(100, 'x');
    a.write(Stream::out, long_line.substr(0, 40)); // past the limit: a holds the stream
    b.write(Stream::out, "short\n");               // waits for a's newline
    EXPECT_EQ(f.out.content(), "a: " + long_line.substr(0, 40));
    a.write(Stream::out, long_line.substr(40));
    EXPECT_TRUE(b.accepting(Stream::out));
    b.write(Stream::out, "0123456789abcdef"); // b's buffer is now at the limit
    EXPECT_FALSE(b.accepting(Stream::out));
    a.write(Stream::out, "\nafter\n"); // a's line ends: the waiting lines follow
    EXPECT_EQ(f.out.content(), "a: " + long_line + "\na: after\nb: short\nb: 0123456789abcdef");
    EXPECT_TRUE(b.accepting(Stream::out)); // b now holds the stream with its own long line
    a.write(Stream::out, "later\n");
    b.write(Stream::out, "!\n");
    EXPECT_EQ(f.out.content(),
              "a: " + long_line + "\na: after\nb: short\nb: 0123456789abcdef!\na: later\n");
}

TEST(MultiplexerPrefixed, ReleasesALongLineWhenItsStreamCloses) {
    Fixture f;
    Multiplexer mux = f.make(true, 8);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    a.write(Stream::out, "0123456789");
    b.write(Stream::out, "waiting\n");
    a.close(Stream::out);
    EXPECT_EQ(f.out.content(), "a: 0123456789\nb: waiting\n");
}

TEST(MultiplexerPrefixed, StreamsAreIndependent) {
    Fixture f;
    Multiplexer mux = f.make(true, 8);
    NodeOutput& a = mux.add_node("a: ");
    NodeOutput& b = mux.add_node("b: ");
    a.write(Stream::out, "0123456789"); // a holds stdout only
    b.write(Stream::err, "err line\n");
    EXPECT_EQ(f.err.content(), "b: err line\n");
    EXPECT_TRUE(b.accepting(Stream::err));
}

TEST(MultiplexerPrefixed, KeepsEveryByteOfBinaryLines) {
    Fixture f;
    Multiplexer mux = f.make(true, 1024);
    NodeOutput& a = mux.add_node("a: ");
    std::string bytes("\x00\x01\xc3\x28\xff\r", 6);
    a.write(Stream::out, bytes + "\n");
    EXPECT_EQ(f.out.content(), "a: " + bytes + "\n");
}

} // namespace
} // namespace colossalai::output
