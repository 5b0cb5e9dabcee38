#pragma once

// One node's session over the fake libssh's channel (make_libssh_session), driven the way the
// launcher's loop drives it, with a clock the test moves by hand.

#include "../test_clock.hpp"
#include "attempt.hpp"
#include "fake_libssh.hpp"
#include "libssh_channel.hpp"

#include "colossalai/job/outcome.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/output/sink.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/worker_pool.hpp"

#include <gtest/gtest.h>

#include <poll.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace colossalai::ssh::fake {

using namespace std::chrono_literals;

using colossalai::test::TestClock; // the time the session reads

// A node's output as the launcher's sink sees it, with backpressure switched by the test.
class RecordingOutput : public output::NodeOutput {
public:
    bool accepting(output::Stream stream) const override { return m_accepting[index(stream)]; }
    void write(output::Stream stream, std::string_view bytes) override {
        m_text[index(stream)] += bytes;
    }
    void close(output::Stream stream) override { m_closed[index(stream)] = true; }

    void set_accepting(output::Stream stream, bool accepting) {
        m_accepting[index(stream)] = accepting;
    }
    const std::string& text(output::Stream stream) const { return m_text[index(stream)]; }
    bool closed(output::Stream stream) const { return m_closed[index(stream)]; }

private:
    static int index(output::Stream stream) { return stream == output::Stream::err ? 1 : 0; }
    bool m_accepting[2] = {true, true};
    std::string m_text[2];
    bool m_closed[2] = {false, false};
};

// Settings with round numbers, timed by TestClock: a heartbeat every second, a keepalive every
// 3 s, lost after 3 unanswered; an empty ssh config (the machine's files are never read: a
// ServerAliveInterval there would replace the keepalive's).
inline SshSettings test_settings() {
    SshSettings settings;
    settings.connect.timeout = 7000ms;
    settings.heartbeat = 1000ms;
    settings.unacked_limit = 9000ms;
    settings.keepalive_interval = 3000ms;
    settings.keepalive_count = 3;
    settings.now = TestClock::now;
    settings.connect.read_config = [](const ConfigTarget&) { return ClientConfig{}; };
    return settings;
}

// The exec request every node gets, and (in place of the wrapper's input) what the test's
// launcher writes first.
inline const std::string remote(login_command());
inline const std::string environment = "ENV=1\n\n";

// The node's command, as the wrapper's preflight failures name it.
inline job::NodeCommand node_command() {
    job::NodeCommand node;
    node.host = "node1";
    node.working_directory = "/work";
    node.argv = {"torchrun", "train.py"};
    return node;
}

// Tag: the node's one worker is kept busy (hold_worker) before its connection is queued.
struct WorkerHeld {};

class FakeNode {
public:
    explicit FakeNode(Script script = {}, SshSettings settings = test_settings())
        : FakeNode(false, std::move(script), settings) {}
    explicit FakeNode(WorkerHeld, Script script = {}) : FakeNode(true, std::move(script)) {}

    // Waits (on the clock of the world: a worker thread does it) for the worker's outcome,
    // then hands it to the process, as the loop does when the attempt's eventfd is readable.
    void await_worker() {
        std::vector<pollfd> fds;
        process->collect_fds(fds);
        ASSERT_EQ(fds.size(), 1u) << "no worker to wait for";
        ASSERT_EQ(::poll(fds.data(), fds.size(), 10000), 1) << "the worker posted nothing";
        process->process_events(fds);
    }

    // Waits until the worker has done what was queued before (the one worker runs its tasks
    // in order), without handing anything to the process.
    void await_idle_worker() {
        std::promise<void> done;
        std::future<void> idle = done.get_future();
        m_pool.submit([&done] { done.set_value(); });
        ASSERT_EQ(idle.wait_for(10s), std::future_status::ready) << "the worker is stuck";
    }

    // Keeps the one worker busy until release_worker(): what is submitted meanwhile waits.
    void hold_worker() {
        m_pool.submit([held = m_held.get_future().share()] { held.wait(); });
    }
    void release_worker() {
        if (!m_released) {
            m_released = true;
            m_held.set_value();
        }
    }
    ~FakeNode() { release_worker(); }
    FakeNode(const FakeNode&) = delete;
    FakeNode& operator=(const FakeNode&) = delete;

    // Connects (the wrapper answers ready) and goes: the job runs.
    void start_running() {
        await_worker();
        ASSERT_TRUE(process->ready());
        ASSERT_FALSE(ended()) << said();
        process->go();
        ASSERT_FALSE(ended()) << said();
    }

    // The launcher's loop without blocking: a pass while an fd is ready, the process has work
    // or its deadline passed. Returns false when it would spin (10,000 passes).
    bool settle() {
        for (int pass = 0; pass < 10000; ++pass) {
            std::vector<pollfd> fds = wanted();
            if (process->result()) {
                return true;
            }
            int ready = ::poll(fds.data(), fds.size(), 0);
            std::optional<job::Clock::time_point> deadline = process->deadline();
            bool due = deadline && *deadline <= TestClock::now();
            if (ready <= 0 && !process->has_work() && !due) {
                return true;
            }
            process->process_events(fds);
        }
        return false;
    }

    // What the process asks poll() for now.
    std::vector<pollfd> wanted() {
        std::vector<pollfd> fds;
        process->collect_fds(fds);
        return fds;
    }
    short events() {
        std::vector<pollfd> fds = wanted();
        return fds.empty() ? 0 : fds[0].events;
    }

    // One pass as after a wake-up with nothing ready (the deadline passed).
    void tick() { process->process_events({}); }

    // The end, as the test reads it.
    bool ended() const { return process->result().has_value(); }
    std::optional<job::Outcome> outcome() const { return process->result(); }
    // The end's reason (an error kind's one line), for the failures worded by libssh's answers.
    std::string reason() const { return ended() ? process->result()->reason() : "(running)"; }
    // What the summary would say, for messages.
    std::string said() const { return ended() ? job::describe(*process->result()) : "(running)"; }

    // The control lines and heartbeats written after the environment block and the go line.
    std::string written_after_go() const {
        std::string all = libssh.written();
        std::string before = environment + std::string(go_line);
        return all.rfind(before, 0) == 0 ? all.substr(before.size()) : "(" + all + ")";
    }

    FakeLibssh libssh; // first in, last out: everything below calls it until destroyed
    RecordingOutput output;

private:
    SshSettings m_settings;
    WorkerPool m_pool{1};
    std::promise<void> m_held;
    bool m_released = false;
    std::vector<HostTiming> m_timings;

    FakeNode(bool worker_held, Script script, SshSettings settings = test_settings())
        : libssh(std::move(script)), m_settings(settings) {
        TestClock::reset();
        if (worker_held) {
            hold_worker();
        }
        auto attempt = std::make_shared<Attempt>();
        m_pool.submit([attempt, node = node_command(), connect = m_settings.connect] {
            attempt->connect(node, connect, environment);
        });
        process = make_libssh_session(attempt, node_command(), output, m_settings, m_timings);
    }

public:
    std::unique_ptr<job::Process> process; // destroyed first: it refers to the pool
};

} // namespace colossalai::ssh::fake

namespace colossalai::job {
// For GoogleTest's messages.
inline void PrintTo(const Outcome& outcome, std::ostream* out) {
    *out << "Outcome(kind " << static_cast<int>(outcome.kind()) << ", code " << outcome.code()
         << ", signal " << outcome.signal() << ": " << describe(outcome) << ")";
}
} // namespace colossalai::job
