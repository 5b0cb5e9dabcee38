#pragma once

// The launcher tests' scripted transport: each node follows a Script (connect, print, exit,
// ignore signals...) and the fixture runs the real loop over them, in the time of a TestClock:
// where the loop would sleep until a deadline, the clock moves instead (fake_wait).

#include "../test_clock.hpp"

#include "colossalai/launch/launcher.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <set>

namespace colossalai::launch {

using colossalai::test::TestClock;
using job::Process;
using job::Transport;

// The longest step fake_wait moves the clock by: a loop that waits for a later deadline wakes
// up on the way, and must not act before its time.
constexpr std::chrono::milliseconds max_clock_step{1000};

// The loop's wait (Settings::wait): what is ready now is returned at once; otherwise, instead
// of sleeping, the clock moves on by the timeout (at most max_clock_step). A loop that would
// wait forever with nothing ready would hang the test: it fails instead.
inline int fake_wait(pollfd* fds, nfds_t count, int timeout_ms) {
    int ready = ::poll(fds, count, 0);
    if (ready != 0 || timeout_ms == 0) {
        return ready;
    }
    if (timeout_ms < 0) {
        ADD_FAILURE() << "the loop waits with no deadline and nothing ready";
        errno = EINVAL;
        return -1;
    }
    TestClock::advance(std::min(std::chrono::milliseconds(timeout_ms), max_clock_step));
    return 0;
}

// What a scripted node does.
struct Script {
    std::string output;           // written to stdout at the first step
    std::optional<int> exit_code; // ends with this code at the first step
    // ... or this long after its job started (TestClock), as a job that runs for a while
    std::optional<std::chrono::milliseconds> exit_after;
    std::set<int> ignored;           // signals that do not end it
    std::optional<int> handles_stop; // stop() makes it exit with this code (its own handler)
    bool hangs_after_kill = false;   // not even SIGKILL ends it (a hung connection)
    int raise_in_launcher = 0;       // sends this signal to the launcher at its first step
    size_t connect_steps = 0;        // process_events() calls before it is ready (a slow host)
    std::optional<std::string> connect_error; // fails when it would be ready (host unreachable)
    std::optional<std::string> host;          // the name its transport learns once its job started
    // Its part of the rendezvous check (Process::check_rendezvous): the turn it has one in, the
    // process_events() calls it takes to answer, and the failure it answers with, if any.
    std::optional<job::RendezvousTurn> rendezvous_turn;
    size_t rendezvous_steps = 1;
    std::optional<std::string> rendezvous_failure;
};

struct Shared {
    int signal_pipe = -1;
    std::vector<std::vector<int>>
        received; // stop(N) and kill() (as SIGKILL) each node got, in order
    std::vector<std::vector<job::Clock::time_point>> received_at;    // when (TestClock)
    std::vector<std::optional<job::Clock::time_point>> abandoned_at; // abandon() called
    std::vector<size_t> steps; // process_events() calls each node got
    std::vector<bool> went;    // go() was called
    size_t went_while_others_connecting = 0;
    size_t transport_steps = 0; // the transport's own process_events() calls
    // "asked N" and "answered N" as node N's part of the rendezvous check went, in order.
    std::vector<std::string> rendezvous;
};

inline Script exits(int code, std::string output = "") {
    Script script;
    script.output = std::move(output);
    script.exit_code = code;
    return script;
}

// Runs for `after` (TestClock), then exits with `code`.
inline Script exits_after(std::chrono::milliseconds after, int code) {
    Script script;
    script.exit_code = code;
    script.exit_after = after;
    return script;
}

inline Script runs(std::set<int> ignored = {}) {
    Script script;
    script.ignored = std::move(ignored);
    return script;
}

class FakeProcess : public Process {
public:
    FakeProcess(Script script, output::NodeOutput& output, Shared& shared, size_t index)
        : m_script(std::move(script)), m_output(output), m_shared(shared), m_index(index) {}

    void collect_fds(std::vector<pollfd>&) override {}
    bool has_work() const override { return !m_started; }
    bool ready() const override { return m_connect_steps == 0; }
    bool check_rendezvous(job::RendezvousTurn turn) override {
        if (m_script.rendezvous_turn != turn || m_checking) {
            return false;
        }
        m_checking = true;
        m_shared.rendezvous.push_back("asked " + std::to_string(m_index));
        m_connect_steps = m_script.rendezvous_steps;
        return true;
    }
    void go() override {
        m_shared.went[m_index] = true;
        m_going = true;
    }
    std::optional<job::Clock::time_point> deadline() const override {
        if (!m_started || m_result || !m_script.exit_after) {
            return std::nullopt;
        }
        return m_started_at + *m_script.exit_after;
    }
    void process_events(std::span<const pollfd>) override {
        ++m_shared.steps[m_index];
        if (m_result) {
            return;
        }
        if (std::optional<job::Clock::time_point> due = deadline();
            due && TestClock::now() >= *due) {
            finish(job::Outcome::exited(m_script.exit_code.value_or(0)));
            return;
        }
        if (m_script.raise_in_launcher != 0 && !m_raised) {
            m_raised = true;
            ssize_t n = ::write(m_shared.signal_pipe, &m_script.raise_in_launcher, sizeof(int));
            ASSERT_EQ(n, static_cast<ssize_t>(sizeof(int)));
        }
        if (m_connect_steps > 0 && m_checking) {
            if (--m_connect_steps == 0) {
                m_shared.rendezvous.push_back("answered " + std::to_string(m_index));
                if (m_script.rendezvous_failure) {
                    finish(job::Outcome::cannot_run(*m_script.rendezvous_failure, 254));
                }
            }
            return;
        }
        if (m_connect_steps > 0) {
            if (--m_connect_steps == 0 && m_script.connect_error) {
                m_connect_steps = 1; // never ready
                finish(job::Outcome::connect_failed(*m_script.connect_error));
            }
            return;
        }
        if (!m_going || m_started) {
            return;
        }
        m_started = true;
        m_started_at = TestClock::now();
        m_output.write(output::Stream::out, m_script.output);
        if (m_script.exit_code && !m_script.exit_after) {
            finish(job::Outcome::exited(*m_script.exit_code));
        }
    }
    void stop(int signo) override { deliver(signo); }
    void kill() override { deliver(SIGKILL); }
    void deliver(int signo) {
        m_shared.received[m_index].push_back(signo);
        m_shared.received_at[m_index].push_back(TestClock::now());
        if (!m_result && !m_going) {
            finish(job::Outcome::not_started());
            return;
        }
        if (m_result || m_script.ignored.count(signo) != 0) {
            return;
        }
        if (signo == SIGKILL && m_script.hangs_after_kill) {
            return;
        }
        if (signo != SIGKILL && m_script.handles_stop) {
            finish(job::Outcome::exited(*m_script.handles_stop));
            return;
        }
        finish(job::Outcome::killed(signo));
    }
    void abandon() override {
        m_shared.abandoned_at[m_index] = TestClock::now();
        if (!m_result) {
            finish(job::Outcome::abandoned("abandoned"));
        }
    }
    std::optional<job::Outcome> result() const override { return m_result; }
    std::optional<std::string> host() const override {
        return m_started ? m_script.host : std::nullopt;
    }

private:
    void finish(job::Outcome info) {
        m_output.close(output::Stream::out);
        m_output.close(output::Stream::err);
        m_result = info;
    }

    Script m_script;
    output::NodeOutput& m_output;
    Shared& m_shared;
    size_t m_index;
    size_t m_connect_steps = m_script.connect_steps + (m_script.connect_error ? 1 : 0);
    bool m_going = false;
    bool m_checking = false; // asked for its part of the rendezvous check
    bool m_raised = false;
    bool m_started = false;
    job::Clock::time_point m_started_at{};
    std::optional<job::Outcome> m_result;
};

class FakeTransport : public Transport {
public:
    FakeTransport(std::vector<Script> scripts, Shared& shared)
        : m_scripts(std::move(scripts)), m_shared(shared) {
        m_shared.received.resize(m_scripts.size());
        m_shared.received_at.resize(m_scripts.size());
        m_shared.abandoned_at.resize(m_scripts.size());
        m_shared.steps.resize(m_scripts.size());
        m_shared.went.resize(m_scripts.size());
    }
    std::unique_ptr<Process> start(const job::NodeCommand& command,
                                   output::NodeOutput& output) override {
        auto index = static_cast<size_t>(command.rank);
        return std::make_unique<FakeProcess>(m_scripts.at(index), output, m_shared, index);
    }
    // What the transport runs for all its nodes: counted.
    void process_events(std::span<const pollfd>) override { ++m_shared.transport_steps; }

private:
    std::vector<Script> m_scripts;
    Shared& m_shared;
};

class LauncherTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(::pipe(m_signal_pipe), 0);
        m_out = ::memfd_create("out", 0);
        m_err = ::memfd_create("err", 0);
        m_shared.signal_pipe = m_signal_pipe[1];
        TestClock::reset();
    }
    void TearDown() override {
        ::close(m_signal_pipe[0]);
        ::close(m_signal_pipe[1]);
        ::close(m_out);
        ::close(m_err);
    }

    LaunchResult launch(std::vector<Script> scripts, Settings settings = {}) {
        std::vector<job::NodeCommand> nodes;
        for (size_t i = 0; i < scripts.size(); ++i) {
            job::NodeCommand node;
            node.host = "node" + std::to_string(i);
            node.rank = static_cast<int>(i);
            nodes.push_back(node);
        }
        FakeTransport transport(std::move(scripts), m_shared);
        settings.now = TestClock::now;
        settings.wait = fake_wait;
        output::Multiplexer::Options options;
        options.out_fd = m_out;
        options.err_fd = m_err;
        options.prefixed = nodes.size() > 1;
        options.buffer_limit = 1024;
        options.clock = TestClock::now;
        output::Multiplexer output(options);
        int read_end = m_signal_pipe[0];
        SignalSource signals{read_end, [read_end] {
                                 int signo = 0;
                                 std::vector<int> got;
                                 if (::read(read_end, &signo, sizeof signo) == sizeof signo) {
                                     got.push_back(signo);
                                 }
                                 return got;
                             }};
        LaunchResult result = run_nodes(
            nodes, [&](const job::NodeCommand&) -> Transport& { return transport; }, output,
            signals, settings);
        output.finish(-1);
        return result;
    }

    std::string read_all(int fd) const {
        std::string text;
        char buffer[4096];
        off_t offset = 0;
        ssize_t n;
        while ((n = ::pread(fd, buffer, sizeof buffer, offset)) > 0) {
            text.append(buffer, static_cast<size_t>(n));
            offset += n;
        }
        return text;
    }

    int m_signal_pipe[2] = {-1, -1};
    int m_out = -1;
    int m_err = -1;
    Shared m_shared;
};

} // namespace colossalai::launch
