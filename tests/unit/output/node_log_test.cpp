#include "files.hpp"

#include "colossalai/output/node_log.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace colossalai::output {
namespace {

// What the launcher's rendering of the node received.
class Recorder : public NodeOutput {
public:
    bool accepting(Stream stream) const override { return stream == Stream::out ? m_out_ok : true; }
    void write(Stream stream, std::string_view bytes) override {
        (stream == Stream::out ? out : err).append(bytes);
    }
    void close(Stream stream) override { closed.push_back(stream); }

    std::string out;
    std::string err;
    std::vector<Stream> closed;
    bool m_out_ok = true;
};

std::string contents(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(NodeLog, WritesEveryByteToTheFilesAndPassesItOn) {
    test::TempDir dir;
    Recorder inner;
    std::vector<std::string> reports;
    {
        NodeLog log(inner, dir.path().string(), "0-node1",
                    [&](std::string_view text) { reports.emplace_back(text); });
        std::string binary("\0\xff\r partial", 11);
        log.write(Stream::out, "line 1\n");
        log.write(Stream::err, "warning\n");
        log.write(Stream::out, binary);
        log.close(Stream::out);
        log.write(Stream::err, "no newline");
        EXPECT_EQ(inner.out, "line 1\n" + binary);
        EXPECT_EQ(contents(dir.path() / "0-node1.out"), "line 1\n" + binary);
        EXPECT_EQ(contents(dir.path() / "0-node1.err"), "warning\nno newline");
    }
    EXPECT_EQ(inner.err, "warning\nno newline");
    EXPECT_EQ(inner.closed, (std::vector<Stream>{Stream::out}));
    EXPECT_TRUE(reports.empty());
}

TEST(NodeLog, AcceptsWhatTheRenderingAccepts) {
    test::TempDir dir;
    Recorder inner;
    NodeLog log(inner, dir.path().string(), "0-a", nullptr);
    inner.m_out_ok = false;
    EXPECT_FALSE(log.accepting(Stream::out));
    EXPECT_TRUE(log.accepting(Stream::err));
}

TEST(NodeLog, AFailingFileIsReportedOnceAndTheOutputGoesOn) {
    test::TempDir dir;
    std::filesystem::create_symlink("/dev/full", dir.path() / "0-a.out");
    Recorder inner;
    std::vector<std::string> reports;
    NodeLog log(inner, dir.path().string(), "0-a",
                [&](std::string_view text) { reports.emplace_back(text); });
    log.write(Stream::out, "one\n");
    log.write(Stream::out, "two\n");
    log.write(Stream::err, "err\n");
    EXPECT_EQ(inner.out, "one\ntwo\n");
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0], "colossalai: warning: cannot write the log " +
                              (dir.path() / "0-a.out").string() +
                              ": No space left on device; it stops here\n");
    EXPECT_EQ(contents(dir.path() / "0-a.err"), "err\n");
}

TEST(NodeLog, AFileThatCannotBeOpenedIsReported) {
    test::TempDir dir;
    Recorder inner;
    std::vector<std::string> reports;
    NodeLog log(inner, (dir.path() / "missing").string(), "1-b",
                [&](std::string_view text) { reports.emplace_back(text); });
    log.write(Stream::out, "x");
    EXPECT_EQ(inner.out, "x");
    EXPECT_EQ(reports.size(), 2u); // .out and .err
}

TEST(LogFileStem, RankAndHostAsOneFileName) {
    EXPECT_EQ(log_file_stem(0, "node1"), "0-node1");
    EXPECT_EQ(log_file_stem(12, "alice@gpu-3.example.com"), "12-alice@gpu-3.example.com");
    EXPECT_EQ(log_file_stem(1, "[::1]"), "1-___1_");
    EXPECT_EQ(log_file_stem(2, "../x/y"), "2-.._x_y");
}

} // namespace
} // namespace colossalai::output
