#include "colossalai/output/line_assembler.hpp"

namespace colossalai::output {

std::string_view last_segment(std::string_view text) {
    while (!text.empty()) {
        std::size_t cr = text.rfind('\r');
        if (cr == std::string_view::npos) {
            return text;
        }
        if (cr + 1 < text.size()) {
            return text.substr(cr + 1);
        }
        text.remove_suffix(1); // a trailing `\r`: the segment before it
    }
    return text;
}

Piece LineAssembler::finish_line(std::string_view body, std::string_view terminator) {
    Piece piece;
    piece.continued = m_continued;
    piece.bar = body.find('\r') != std::string_view::npos;
    piece.text = piece.bar ? std::string(last_segment(body)) : std::string(body);
    piece.text += terminator;
    m_continued = false;
    return piece;
}

void LineAssembler::feed(std::string_view bytes, std::vector<Piece>& pieces) {
    while (!bytes.empty()) {
        std::size_t newline = bytes.find('\n');
        if (newline == std::string_view::npos) {
            m_pending.append(bytes);
            break;
        }
        m_pending.append(bytes.substr(0, newline));
        bytes.remove_prefix(newline + 1);
        std::string_view body = m_pending;
        std::string_view terminator = "\n";
        if (!body.empty() && body.back() == '\r') {
            body.remove_suffix(1);
            terminator = "\r\n";
        }
        pieces.push_back(finish_line(body, terminator));
        m_pending.clear();
    }
    if (m_pending.size() < m_limit) {
        return;
    }
    if (m_pending.find('\r') != std::string::npos) {
        // States a later `\r` replaced are never shown again.
        m_pending = "\r" + std::string(last_segment(m_pending));
        if (m_pending.size() < m_limit) {
            return;
        }
        m_pending.erase(0, 1);
    }
    Piece piece;
    piece.text = std::move(m_pending);
    piece.continued = m_continued;
    piece.ends_line = false;
    pieces.push_back(std::move(piece));
    m_pending.clear();
    m_continued = true;
}

void LineAssembler::close(std::vector<Piece>& pieces) {
    if (!m_pending.empty()) {
        std::string body = std::move(m_pending);
        m_pending.clear();
        pieces.push_back(finish_line(body, "\n"));
    }
    m_continued = false;
}

std::string_view LineAssembler::bar() const {
    if (m_pending.find('\r') == std::string::npos) {
        return {};
    }
    return last_segment(m_pending);
}

} // namespace colossalai::output
