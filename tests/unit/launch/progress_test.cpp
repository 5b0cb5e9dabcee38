#include "colossalai/launch/progress.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

namespace colossalai::launch {
namespace {

TEST(ConnectProgressText, ReadyOfTotalAndFailuresWhenThereAreAny) {
    EXPECT_EQ(connect_progress_text(37, 128, 2), "connecting 37/128 (2 failed)");
    EXPECT_EQ(connect_progress_text(0, 9, 0), "connecting 0/9");
}

// What the line writes, read back from a pipe standing in for the terminal.
class ConnectProgressTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(::pipe(m_pipe), 0); }
    void TearDown() override {
        ::close(m_pipe[0]);
        ::close(m_pipe[1]);
    }
    std::string written() {
        std::string text;
        char buffer[4096];
        ssize_t n = 0;
        while ((n = ::read(m_pipe[0], buffer, sizeof buffer)) == sizeof buffer) {
            text.append(buffer, static_cast<size_t>(n));
        }
        if (n > 0) {
            text.append(buffer, static_cast<size_t>(n));
        }
        return text;
    }
    // The launcher's output with the pipe as its stderr.
    output::Multiplexer::Options options() const {
        output::Multiplexer::Options options;
        options.out_fd = m_pipe[1];
        options.err_fd = m_pipe[1];
        return options;
    }
    int m_pipe[2] = {-1, -1};
};

TEST_F(ConnectProgressTest, RedrawsInPlaceOnlyWhenTheTextChangesThenErases) {
    output::Multiplexer writer(options());
    ConnectProgress progress(writer, true, 128);
    progress.update(0, 0);
    progress.update(0, 0); // unchanged: nothing written
    progress.update(37, 2);
    EXPECT_TRUE(progress.shown());
    progress.erase();
    progress.erase(); // nothing shown: nothing written
    EXPECT_FALSE(progress.shown());
    ::write(m_pipe[1], "x", 1); // ends what the pipe holds, so the read below returns
    EXPECT_EQ(written(), "\r\x1b[Kconnecting 0/128\r\x1b[Kconnecting 37/128 (2 failed)\r\x1b[Kx");
}

TEST_F(ConnectProgressTest, NothingWithoutATerminalOrForEightHostsOrFewer) {
    output::Multiplexer writer(options());
    ConnectProgress pipe(writer, false, 1024);
    ConnectProgress few(writer, true, 8);
    for (ConnectProgress* progress : {&pipe, &few}) {
        progress->update(3, 1);
        EXPECT_FALSE(progress->shown());
        progress->erase();
    }
    ::write(m_pipe[1], "x", 1);
    EXPECT_EQ(written(), "x");
    EXPECT_EQ(ConnectProgress::min_hosts, 9u);
}

} // namespace
} // namespace colossalai::launch
