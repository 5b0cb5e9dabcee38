#include "bar_rows.hpp"

#include <sys/ioctl.h>
#include <termios.h>

#include <algorithm>

namespace colossalai::output {

void BarRows::update(Key key, const std::string& prefix, std::string_view state) {
    auto row = std::find_if(m_rows.begin(), m_rows.end(),
                            [key](const Row& candidate) { return candidate.key == key; });
    if (state.empty()) {
        if (row != m_rows.end()) {
            m_rows.erase(row);
            m_dirty = true;
        }
        return;
    }
    if (row == m_rows.end()) {
        row = m_rows.insert(m_rows.end(), Row{key, &prefix, std::nullopt});
    }
    if (row->state != state) {
        row->state = std::string(state);
        m_dirty = true;
    }
}

std::optional<BarRows::Clock::time_point> BarRows::due() const {
    if (!m_dirty) {
        return std::nullopt;
    }
    return m_drawn_at + m_interval;
}

std::string BarRows::around(std::string_view text, std::size_t width, Clock::time_point now) {
    std::string screen = erase();
    screen += text;
    screen += draw(width, now);
    return screen;
}

std::string BarRows::redraw(std::size_t width, Clock::time_point now) {
    std::string screen = erase();
    screen += draw(width, now);
    return screen;
}

std::string BarRows::clear() {
    if (m_drawn == 0) {
        return {};
    }
    m_rows.clear();
    std::string text = erase();
    m_drawn = 0;
    return text;
}

std::string BarRows::erase() const {
    if (m_drawn == 0) {
        return {};
    }
    std::string text = "\r";
    for (std::size_t i = 1; i < m_drawn; ++i) {
        text += "\x1b[A";
    }
    text += "\x1b[J";
    return text;
}

std::string BarRows::draw(std::size_t width, Clock::time_point now) {
    m_drawn = m_rows.size();
    m_drawn_at = now;
    m_dirty = false;
    std::string text;
    // The last column stays free: a row that fills the line would wrap on some terminals and
    // move the cursor down a row that erase() does not know of.
    std::size_t columns = width > 1 ? width - 1 : 1;
    for (const Row& row : m_rows) {
        if (!text.empty()) {
            text += '\n';
        }
        text += fit_columns(*row.prefix + row.state.value_or(""), columns);
    }
    return text;
}

std::size_t terminal_columns(int fd) {
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
        return size.ws_col;
    }
    return 80;
}

std::string fit_columns(std::string_view text, std::size_t columns) {
    std::string fitted;
    std::size_t used = 0;
    bool coloured = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto byte = static_cast<unsigned char>(text[i]);
        if (byte == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
            std::size_t end = i + 2;
            while (end < text.size() && (text[end] < 0x40 || text[end] > 0x7e)) {
                ++end;
            }
            fitted.append(text.substr(i, end + 1 - i));
            coloured = true;
            i = end;
            continue;
        }
        bool starts_character = (byte & 0xc0) != 0x80;
        if (starts_character) {
            if (used == columns) {
                if (coloured) {
                    fitted += "\x1b[0m";
                }
                return fitted;
            }
            ++used;
        }
        fitted += static_cast<char>(byte);
    }
    return fitted;
}

} // namespace colossalai::output
