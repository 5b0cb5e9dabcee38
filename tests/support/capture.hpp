#pragma once

// The reading end of what a launcher under test writes to: a pipe, or the master side of a
// pseudo-terminal, read as it comes (for tests that watch output appear, or hold it back).

#include <chrono>
#include <string>

namespace colossalai::test {

class OutputCapture {
public:
    // `terminal`: a pseudo-terminal (the launcher sees isatty()), else a pipe.
    explicit OutputCapture(bool terminal);
    ~OutputCapture();
    OutputCapture(const OutputCapture&) = delete;
    OutputCapture& operator=(const OutputCapture&) = delete;

    // The descriptor to give the launcher as its stdout and stderr.
    int write_fd() const { return m_write; }
    // The test's copy of write_fd() goes once the launcher holds its own, so that the end is
    // seen.
    void close_write();
    // Reads what is there, waiting up to `wait` for something; false at the end.
    bool read_some(std::chrono::milliseconds wait);
    // Reads until `needle` appears (true) or 20 s pass.
    bool read_until(const std::string& needle);
    // Reads until the end (every writer gone), for at most 60 s.
    void read_to_end();
    const std::string& text() const { return m_text; }

private:
    int m_read = -1;
    int m_write = -1;
    std::string m_text;
};

} // namespace colossalai::test
