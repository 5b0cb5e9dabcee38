#include "colossalai/launch/progress.hpp"

#include <fmt/core.h>

namespace colossalai::launch {

namespace {

// Back to the start of the line, then erase to its end (ECMA-48 EL, understood by every
// terminal emulator in use).
const std::string erase_line = "\r\x1b[K";

} // namespace

std::string connect_progress_text(std::size_t ready, std::size_t total, std::size_t failed) {
    if (failed == 0) {
        return fmt::format("connecting {}/{}", ready, total);
    }
    return fmt::format("connecting {}/{} ({} failed)", ready, total, failed);
}

ConnectProgress::ConnectProgress(output::Multiplexer& output, bool terminal, std::size_t hosts)
    : m_output(output), m_enabled(terminal && hosts >= min_hosts), m_total(hosts) {}

void ConnectProgress::update(std::size_t ready, std::size_t failed) {
    if (!m_enabled) {
        return;
    }
    std::string text = connect_progress_text(ready, m_total, failed);
    if (text == m_shown) {
        return;
    }
    m_output.write_raw(output::Stream::err, erase_line + text);
    m_shown = std::move(text);
}

void ConnectProgress::erase() {
    if (m_shown.empty()) {
        return;
    }
    m_output.write_raw(output::Stream::err, erase_line);
    m_shown.clear();
}

} // namespace colossalai::launch
