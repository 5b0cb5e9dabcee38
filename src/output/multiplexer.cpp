#include "colossalai/output/multiplexer.hpp"

#include "bar_rows.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace colossalai::output {

// One node's stream in prefixed mode.
struct Multiplexer::Track {
    Track(std::size_t limit, Channel& target, const std::string& line_prefix,
          const std::string& continued_prefix)
        : lines(limit), channel(&target), prefix(&line_prefix), continued(&continued_prefix) {}

    const std::string& prefix_of(bool continued_piece) const {
        return continued_piece ? *continued : *prefix;
    }

    LineAssembler lines;
    Channel* channel;
    const std::string* prefix;    // `host: `, the node's
    const std::string* continued; // `host (cont.): `
    // Pipes and files: the bar state last written as a line, when, and when the next is due.
    std::string shown;
    Clock::time_point shown_at{};
    std::optional<Clock::time_point> due;
};

struct Multiplexer::Channel {
    Channel(int fd, std::size_t queue_limit, bool is_terminal,
            std::chrono::milliseconds update_interval)
        : outlet(fd, queue_limit), terminal(is_terminal), bars(update_interval) {}

    Outlet outlet;
    bool terminal;
    bool line_open = false; // raw mode: the last byte written was not a newline
    BarRows bars;           // terminals: the bars drawn under the output
};

class Multiplexer::Node : public NodeOutput {
public:
    Node(Multiplexer& owner, std::string prefix)
        : m_owner(owner), m_prefix(std::move(prefix)),
          m_continued_prefix(continued_prefix(m_prefix)),
          m_out(owner.m_options.buffer_limit, *owner.m_out, m_prefix, m_continued_prefix),
          m_err(owner.m_options.buffer_limit, *owner.m_err, m_prefix, m_continued_prefix) {}

    bool accepting(Stream stream) const override { return !track(stream).channel->outlet.full(); }

    void write(Stream stream, std::string_view bytes) override {
        Track& target = track(stream);
        if (!m_owner.m_options.prefixed) {
            target.channel->outlet.write(bytes);
            if (!bytes.empty()) {
                target.channel->line_open = bytes.back() != '\n';
            }
            return;
        }
        std::vector<Piece> pieces;
        target.lines.feed(bytes, pieces);
        m_owner.update_bar(target, false);
        m_owner.emit(target, pieces);
    }

    void close(Stream stream) override {
        if (!m_owner.m_options.prefixed) {
            return;
        }
        Track& target = track(stream);
        std::vector<Piece> pieces;
        target.lines.close(pieces);
        m_owner.update_bar(target, true);
        m_owner.emit(target, pieces);
    }

    // The tracks point at these strings: they change in place.
    void set_prefix(std::string prefix) override {
        m_continued_prefix = continued_prefix(prefix);
        m_prefix = std::move(prefix);
    }

    Track& track(Stream stream) { return stream == Stream::out ? m_out : m_err; }
    const Track& track(Stream stream) const { return stream == Stream::out ? m_out : m_err; }

private:
    // `host: ` becomes `host (cont.): `.
    static std::string continued_prefix(const std::string& prefix) {
        std::string_view head = prefix;
        if (head.size() >= 2 && head.substr(head.size() - 2) == ": ") {
            head.remove_suffix(2);
        }
        return std::string(head) + " (cont.): ";
    }

    Multiplexer& m_owner;
    std::string m_prefix;
    std::string m_continued_prefix;
    Track m_out;
    Track m_err;
};

namespace {

// Both descriptors lead to the same pipe, file, socket or terminal (`2>&1`).
bool same_object(int a, int b) {
    struct stat sa {};
    struct stat sb {};
    return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

} // namespace

Multiplexer::Multiplexer(Options options) : m_options(std::move(options)) {
    bool out_terminal = m_options.terminal.value_or(::isatty(m_options.out_fd) != 0);
    bool err_terminal = m_options.terminal.value_or(::isatty(m_options.err_fd) != 0);
    m_out = std::make_unique<Channel>(m_options.out_fd, m_options.queue_limit, out_terminal,
                                      m_options.update_interval);
    // One pipe, file or terminal behind both (`2>&1`): one queue, so that the lines of both
    // streams stay whole and in the order they were written (two queues would interleave the
    // pieces of a line that a pipe took only in part), and a terminal's bars stay one block.
    if (out_terminal == err_terminal && same_object(m_options.out_fd, m_options.err_fd)) {
        m_err = m_out.get();
    } else {
        m_err_own = std::make_unique<Channel>(m_options.err_fd, m_options.queue_limit, err_terminal,
                                              m_options.update_interval);
        m_err = m_err_own.get();
    }
}

Multiplexer::~Multiplexer() = default;

Clock::time_point Multiplexer::now() const {
    return m_options.clock ? m_options.clock() : Clock::now();
}

NodeOutput& Multiplexer::add_node(std::string prefix) {
    m_nodes.push_back(std::make_unique<Node>(*this, std::move(prefix)));
    return *m_nodes.back();
}

void Multiplexer::write_notice(std::string_view text) {
    Channel& target = *m_err;
    if (target.line_open) {
        target.outlet.write("\n");
        target.line_open = false;
    }
    write_lines(target, text);
}

bool Multiplexer::terminal(Stream stream) const {
    return (stream == Stream::out ? *m_out : *m_err).terminal;
}

void Multiplexer::write_raw(Stream stream, std::string_view bytes) {
    channel(stream).outlet.write(bytes);
}

void Multiplexer::emit(Track& track, std::vector<Piece>& pieces) {
    if (pieces.empty()) {
        return;
    }
    std::string text;
    for (Piece& piece : pieces) {
        std::string_view body = piece.text;
        if (piece.ends_line) {
            body.remove_suffix(body.size() >= 2 && body.substr(body.size() - 2) == "\r\n" ? 2 : 1);
        }
        // A pipe was shown this state as an update already.
        bool repeated = !track.channel->terminal && piece.bar && body == track.shown;
        if (!repeated) {
            text += track.prefix_of(piece.continued);
            text += piece.text;
            if (!piece.ends_line) {
                text += '\n';
            }
        }
        if (piece.ends_line) {
            track.shown.clear();
            track.due.reset();
        }
    }
    write_lines(*track.channel, text);
}

void Multiplexer::update_bar(Track& track, bool closing) {
    std::string_view state = closing ? std::string_view() : track.lines.bar();
    Channel& target = *track.channel;
    if (target.terminal) {
        target.bars.update(&track, *track.prefix, state);
        if (std::optional<Clock::time_point> due = target.bars.due(); due && now() >= *due) {
            redraw(target);
        }
        return;
    }
    if (state.empty() || state == track.shown) {
        track.due.reset();
        return;
    }
    Clock::time_point when = now();
    if (when >= track.shown_at + m_options.update_interval) {
        show_update(track, when);
    } else {
        track.due = track.shown_at + m_options.update_interval;
    }
}

void Multiplexer::show_update(Track& track, Clock::time_point when) {
    std::string_view state = track.lines.bar();
    track.due.reset();
    if (state.empty() || state == track.shown) {
        return;
    }
    track.shown = std::string(state);
    track.shown_at = when;
    std::string line = *track.prefix;
    line += track.shown;
    line += '\n';
    write_lines(*track.channel, line);
}

void Multiplexer::write_lines(Channel& target, std::string_view text) {
    if (text.empty()) {
        return;
    }
    if (!target.terminal || target.bars.idle()) {
        target.outlet.write(text);
        return;
    }
    target.outlet.write(target.bars.around(text, width_of(target), now()));
}

void Multiplexer::redraw(Channel& target) {
    target.outlet.write(target.bars.redraw(width_of(target), now()));
}

std::size_t Multiplexer::width_of(const Channel& target) const {
    if (m_options.terminal_width) {
        return *m_options.terminal_width;
    }
    return terminal_columns(target.outlet.write_fd());
}

void Multiplexer::collect_fds(std::vector<pollfd>& fds) const {
    m_out->outlet.collect_fds(fds);
    if (m_err_own) {
        m_err_own->outlet.collect_fds(fds);
    }
}

void Multiplexer::process_events(std::span<const pollfd> fds) {
    for (const pollfd& entry : fds) {
        if (entry.revents == 0) {
            continue;
        }
        for (Channel* target : {m_out.get(), m_err_own.get()}) {
            if (target != nullptr && entry.fd == target->outlet.write_fd()) {
                target->outlet.flush_some();
            }
        }
    }
    Clock::time_point when = now();
    for (auto& node : m_nodes) {
        for (Stream stream : {Stream::out, Stream::err}) {
            Track& track = node->track(stream);
            if (track.due && when >= *track.due) {
                show_update(track, when);
            }
        }
    }
    for (Channel* target : {m_out.get(), m_err_own.get()}) {
        if (target == nullptr) {
            continue;
        }
        if (std::optional<Clock::time_point> due = target->bars.due(); due && when >= *due) {
            redraw(*target);
        }
    }
}

std::optional<Clock::time_point> Multiplexer::deadline() const {
    std::optional<Clock::time_point> earliest;
    auto consider = [&](Clock::time_point when) {
        earliest = earliest ? std::min(*earliest, when) : when;
    };
    for (const Channel* target : {m_out.get(), m_err_own.get()}) {
        if (target == nullptr) {
            continue;
        }
        if (std::optional<Clock::time_point> due = target->bars.due()) {
            consider(*due);
        }
    }
    if (!m_options.prefixed) {
        return earliest;
    }
    for (const auto& node : m_nodes) {
        for (Stream stream : {Stream::out, Stream::err}) {
            const Track& track = node->track(stream);
            if (track.due) {
                consider(*track.due);
            }
        }
    }
    return earliest;
}

std::size_t Multiplexer::queued() const {
    return m_out->outlet.queued() + (m_err_own ? m_err_own->outlet.queued() : 0);
}

bool Multiplexer::finish(int stop_fd) {
    for (Channel* target : {m_out.get(), m_err_own.get()}) {
        if (target == nullptr) {
            continue;
        }
        if (std::string erase = target->bars.clear(); !erase.empty()) {
            target->outlet.write(erase);
        }
    }
    std::vector<pollfd> fds;
    while (true) {
        fds.clear();
        collect_fds(fds);
        if (fds.empty()) {
            return true;
        }
        if (stop_fd >= 0) {
            fds.push_back({stop_fd, POLLIN, 0});
        }
        int ready = ::poll(fds.data(), fds.size(), -1);
        if (ready < 0 && errno != EINTR) {
            return false;
        }
        if (stop_fd >= 0 && fds.back().revents != 0) {
            return false;
        }
        process_events(fds);
    }
}

} // namespace colossalai::output
