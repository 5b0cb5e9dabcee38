#pragma once

#include "colossalai/run/plan.hpp"

#include <poll.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::launch {

// How one node's job ended.
struct ExitInfo {
    int code = -1;     // exit status when it exited
    int signal = 0;    // the signal that killed it, 0 if none
    std::string error; // the job could not run or its connection broke (one line); else empty

    bool success() const { return error.empty() && signal == 0 && code == 0; }
};

enum class Stream { out, err };

// Where a node's output goes. The launcher owns one per node; a Process writes what it reads.
class NodeOutput {
public:
    virtual ~NodeOutput() = default;
    // False while the stream's buffer is full: the process must stop reading it (backpressure),
    // which keeps the launcher's memory bounded whatever a node prints.
    virtual bool accepting(Stream stream) const = 0;
    virtual void write(Stream stream, std::string_view bytes) = 0;
    // The stream reached its end: flush a last partial line.
    virtual void close(Stream stream) = 0;
};

// One node's job. Passive: the launcher's event loop asks for fds to wait on and calls back
// when they are ready. All methods are called from the launcher's thread only.
class Process {
public:
    virtual ~Process() = default;
    // Appends the fds to wait on (with events) to `fds`.
    virtual void collect_fds(std::vector<pollfd>& fds) = 0;
    // Called after poll() with exactly the entries this process appended, revents filled in.
    virtual void process_events(std::span<const pollfd> fds) = 0;
    // True when the process can make progress without waiting (data already buffered, output
    // became accepting again): the loop then calls process_events() with no ready fds.
    virtual bool has_work() const { return false; }
    // Sends a signal to the whole job (its process group, on its host). Best effort; SIGKILL
    // must not fail silently while the job runs.
    virtual void signal(int signo) = 0;
    // Set once the job has ended and its output streams are closed.
    virtual std::optional<ExitInfo> result() const = 0;
};

// Starts jobs. start() never blocks for long (a remote connection proceeds in the background
// and its failure arrives as a result with `error` set).
class Transport {
public:
    virtual ~Transport() = default;
    virtual std::unique_ptr<Process> start(const run::NodeCommand& command, NodeOutput& output) = 0;
};

} // namespace colossalai::launch
