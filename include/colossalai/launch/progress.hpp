#pragma once

#include "colossalai/output/multiplexer.hpp"

#include <cstddef>
#include <string>

namespace colossalai::launch {

// `connecting 37/128 (2 failed)`: hosts ready of all hosts, and how many could not be reached.
std::string connect_progress_text(std::size_t ready, std::size_t total, std::size_t failed);

// The one status line shown while many hosts connect. Only on a terminal (stderr is a TTY) and
// only for more than 8 hosts: never in pipes or logs, never for a handful of hosts that connect
// in a blink. The line is redrawn in place (carriage return, erase to the end of the line) and
// erased before anything else is written to the terminal; the caller erases it before its own
// messages and before any job starts (so before any node output).
class ConnectProgress {
public:
    // The hosts above which the line is shown.
    static constexpr std::size_t min_hosts = 9;

    // `terminal`: the launcher's stderr is a TTY (the caller asks, tests decide). The line goes
    // through `output`'s stderr, in order with everything else written there.
    ConnectProgress(output::Multiplexer& output, bool terminal, std::size_t hosts);

    // Redraws the line when its text changed.
    void update(std::size_t ready, std::size_t failed);
    // Erases the line if one is shown; update() may draw it again.
    void erase();
    bool shown() const { return !m_shown.empty(); }

private:
    output::Multiplexer& m_output;
    bool m_enabled;
    std::size_t m_total;
    std::string m_shown; // the text on the terminal now, empty when none
};

} // namespace colossalai::launch
