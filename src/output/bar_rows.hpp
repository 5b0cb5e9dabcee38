#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::output {

// The progress bars pinned below the scrolling lines of one terminal channel: one row per bar,
// in order of appearance, each the bar's prefix (`host: `) and its latest state, cut to the
// terminal's width. It knows what the screen shows of them and makes the bytes that move them
// (erase, draw); the channel writes those bytes in order with its lines. Pure: the time and the
// width are given.
class BarRows {
public:
    using Clock = std::chrono::steady_clock;
    // A bar's identity (one node's stream): its row is found again by it.
    using Key = const void*;

    // Rows that changed are drawn again at most every `interval`.
    explicit BarRows(std::chrono::milliseconds interval) : m_interval(interval) {}

    // The latest state of the bar `key`, drawn behind `prefix` (read at every drawing: it may
    // change in place). A new bar gets a row at the bottom; an empty state (the bar's line ended
    // or its stream closed) takes its row away.
    void update(Key key, const std::string& prefix, std::string_view state);

    // When the rows changed since they were drawn: the earliest time to draw them again.
    std::optional<Clock::time_point> due() const;

    // Nothing to draw and nothing drawn: lines are written as they are.
    bool idle() const { return m_drawn == 0 && m_rows.empty(); }

    // The bytes that write `text` (whole lines) above the rows: erase them, the lines, draw them.
    std::string around(std::string_view text, std::size_t width, Clock::time_point now);
    // The bytes that draw the rows again as they are now.
    std::string redraw(std::size_t width, Clock::time_point now);
    // At the end: the bytes that erase the drawn rows, which are forgotten; nothing when none is
    // drawn.
    std::string clear();

private:
    struct Row {
        Key key;
        const std::string* prefix;
        std::optional<std::string> state;
    };

    // The cursor is at the end of the last drawn row: back to the first row's start, clear
    // below.
    std::string erase() const;
    // The rows, as they are now; from then on they are what the screen shows.
    std::string draw(std::size_t width, Clock::time_point now);

    std::chrono::milliseconds m_interval;
    std::vector<Row> m_rows;
    std::size_t m_drawn = 0; // rows on the screen now (after the queue is written)
    Clock::time_point m_drawn_at{};
    bool m_dirty = false; // rows changed since they were drawn
};

// The width of the terminal behind `fd` in columns; 80 when it does not say.
std::size_t terminal_columns(int fd);

// `text` cut to at most `columns` terminal columns: UTF-8 continuation bytes and escape
// sequences (`ESC [ ... letter`) take none; a cut inside coloured text resets the colour.
std::string fit_columns(std::string_view text, std::size_t columns);

} // namespace colossalai::output
