#include "colossalai/output/multiplexer.hpp"

#include <string_view>

namespace colossalai::output {

class Multiplexer::Node : public NodeOutput {
public:
    Node(Multiplexer& owner, std::size_t index, std::string prefix)
        : m_owner(owner), m_index(index), m_prefix(std::move(prefix)) {}

    bool accepting(Stream stream) const override {
        return m_owner.m_options.prefixed == false ||
               buffer(stream).pending.size() < m_owner.m_options.buffer_limit;
    }

    void write(Stream stream, std::string_view bytes) override {
        if (!m_owner.m_options.prefixed) {
            Channel& target = m_owner.channel(stream);
            target.writer.write(bytes);
            if (!bytes.empty()) {
                target.line_open = bytes.back() != '\n';
            }
            return;
        }
        buffer(stream).pending.append(bytes);
        m_owner.drain_node(*this, stream);
    }

    void close(Stream stream) override {
        if (!m_owner.m_options.prefixed) {
            return;
        }
        buffer(stream).closed = true;
        m_owner.drain_node(*this, stream);
    }

private:
    friend class Multiplexer;

    struct Buffer {
        std::string pending; // bytes not yet written
        bool closed = false;
    };

    Buffer& buffer(Stream stream) { return stream == Stream::out ? m_out : m_err; }
    const Buffer& buffer(Stream stream) const { return stream == Stream::out ? m_out : m_err; }

    Multiplexer& m_owner;
    std::size_t m_index;
    std::string m_prefix;
    Buffer m_out;
    Buffer m_err;
};

Multiplexer::Multiplexer(Options options)
    : m_options(options), m_out{FdWriter(options.out_fd), {}}, m_err{FdWriter(options.err_fd), {}} {
}

Multiplexer::~Multiplexer() = default;

NodeOutput& Multiplexer::add_node(std::string prefix) {
    m_nodes.push_back(std::make_unique<Node>(*this, m_nodes.size(), std::move(prefix)));
    return *m_nodes.back();
}

void Multiplexer::end_open_line(Stream stream) {
    Channel& target = channel(stream);
    if (target.line_open) {
        target.writer.write("\n");
        target.line_open = false;
    }
}

void Multiplexer::drain_node(Node& node, Stream stream) {
    Channel& target = channel(stream);
    Node::Buffer& buffer = node.buffer(stream);
    bool released = false;
    while (!target.owner || *target.owner == node.m_index) {
        bool continuing = target.owner.has_value(); // the prefix was written with the start
        std::string_view prefix = continuing ? std::string_view() : node.m_prefix;
        std::size_t newline = buffer.pending.find('\n');
        if (newline != std::string::npos) {
            target.writer.write(prefix, std::string_view(buffer.pending).substr(0, newline + 1));
            buffer.pending.erase(0, newline + 1);
            released = released || continuing;
            target.owner.reset();
            continue;
        }
        if (buffer.closed && (!buffer.pending.empty() || continuing)) {
            buffer.pending += '\n'; // a last line without newline still ends the line
            continue;
        }
        if (buffer.pending.size() >= m_options.buffer_limit) {
            target.writer.write(prefix, buffer.pending); // a long line: keep the stream
            buffer.pending.clear();
            target.owner = node.m_index;
        }
        break;
    }
    if (buffer.pending.capacity() > 4 * m_options.buffer_limit) {
        buffer.pending.shrink_to_fit(); // after a burst, give the memory back
    }
    if (released) {
        drain(stream);
    }
}

void Multiplexer::drain(Stream stream) {
    for (auto& node : m_nodes) {
        if (channel(stream).owner) {
            return;
        }
        drain_node(*node, stream);
    }
}

} // namespace colossalai::output
