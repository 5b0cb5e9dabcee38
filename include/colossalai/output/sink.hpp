#pragma once

#include <string>
#include <string_view>

namespace colossalai::output {

enum class Stream { out, err };

// Where one node's output goes. The launcher owns one per node; the node's Process writes what
// it reads from the job's stdout and stderr.
class NodeOutput {
public:
    virtual ~NodeOutput() = default;
    // False while the stream's buffer is full: the process must stop reading that stream
    // (backpressure), which keeps the launcher's memory bounded whatever a node prints.
    virtual bool accepting(Stream stream) const = 0;
    virtual void write(Stream stream, std::string_view bytes) = 0;
    // The stream reached its end: a last partial line is flushed.
    virtual void close(Stream stream) = 0;
    // The node's name became known after it started (the tasks of a Slurm allocation name their
    // nodes): lines from now on carry `prefix` (`host: `). Outputs without prefixes ignore it.
    virtual void set_prefix(std::string prefix) { (void)prefix; }
};

} // namespace colossalai::output
