#pragma once

// A node's output as a transport's unit test sees it: every byte kept, per stream, and how often
// each stream was closed. Always accepting (no backpressure).

#include "colossalai/output/sink.hpp"

#include <string>
#include <string_view>
#include <utility>

namespace colossalai::test {

class RecordingOutput : public output::NodeOutput {
public:
    bool accepting(output::Stream) const override { return true; }
    void write(output::Stream stream, std::string_view bytes) override {
        (stream == output::Stream::out ? out : err).append(bytes);
    }
    void close(output::Stream stream) override {
        ++(stream == output::Stream::out ? out_closed : err_closed);
    }

    void set_prefix(std::string text) override { prefix = std::move(text); }

    std::string out, err;
    int out_closed = 0, err_closed = 0;
    std::string prefix; // the last set_prefix()
};

} // namespace colossalai::test
