#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::output {

// One piece of a node's stream, ready to be written after the node's prefix.
struct Piece {
    // The bytes to show. A whole line keeps its own terminator ("\n" or "\r\n"); a piece of an
    // over-long line (ends_line false) has none, and the writer ends it with "\n".
    std::string text;
    // The piece continues a line whose start was written before (as a piece of its own).
    bool continued = false;
    // The piece ends its line (the node wrote the newline, or its stream closed).
    bool ends_line = true;
    // The line held carriage returns (a progress bar): `text` is what the terminal would last
    // have shown of it, the last non-empty `\r`-separated segment.
    bool bar = false;
};

// Turns the bytes of one node's stream into whole lines, without I/O or time: the pure part of
// the multiplexer's prefixed mode.
//
// - Bytes up to a newline are a line. A `\r` just before the newline belongs to the terminator.
// - A `\r` anywhere else is a line update (tqdm and most progress bars): bar() is the state a
//   terminal would show now, and when the line ends its piece carries that last state only.
// - What is held never grows past `limit` (plus one write): an over-long line drops the states
//   a later `\r` replaced, and a segment longer than that is given out as a piece that does not
//   end its line; the rest of the line follows as `continued` pieces. No line ever waits for
//   anything but its own bytes.
class LineAssembler {
public:
    explicit LineAssembler(std::size_t limit) : m_limit(limit) {}

    // Appends the pieces that `bytes` completes to `pieces`.
    void feed(std::string_view bytes, std::vector<Piece>& pieces);
    // The stream ended: a last line without newline is given out with one.
    void close(std::vector<Piece>& pieces);

    // The latest state of an open line that holds a `\r`; empty when there is none.
    std::string_view bar() const;
    // Bytes held for the open line.
    std::size_t held() const { return m_pending.size(); }

private:
    Piece finish_line(std::string_view body, std::string_view terminator);

    std::size_t m_limit;
    std::string m_pending;    // the open line's bytes
    bool m_continued = false; // its start was given out already
};

// The last non-empty segment of `text` split at `\r` (empty when there is none).
std::string_view last_segment(std::string_view text);

} // namespace colossalai::output
