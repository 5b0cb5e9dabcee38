#pragma once

// A child process that a transport's unit test drives by hand behind the transport's Spawn seam
// (srun, scancel, mpirun): what it prints, when it ends, what it was sent.

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::test {

// One child the transport started, as the test sees it.
struct Child {
    exec::SpawnRequest request;
    output::NodeOutput* output = nullptr;
    std::vector<int> stopped; // stop(N) and kill() (SIGKILL), in order
    bool abandoned = false;
    std::optional<job::Outcome> result;
    bool alive = true; // the transport still holds it
    // Destroyed while it runs, it abandons itself, as a real process (LocalProcess) does: its
    // output must still live then.
    bool abandoned_when_destroyed = false;
    int fd = -1;                                    // polled for input when set
    std::optional<job::Clock::time_point> deadline; // its Process::deadline()
    std::vector<std::size_t> events;                // how many entries each process_events() got

    // What the child prints: a whole line on `stream`.
    void say(const std::string& line, output::Stream stream = output::Stream::out) const {
        output->write(stream, line + "\n");
    }
    void end(job::Outcome outcome) {
        output->close(output::Stream::out);
        output->close(output::Stream::err);
        result = std::move(outcome);
    }
};

class FakeChild : public job::Process {
public:
    explicit FakeChild(std::shared_ptr<Child> child) : m_child(std::move(child)) {}
    ~FakeChild() override {
        if (m_child->abandoned_when_destroyed) {
            abandon();
        }
        m_child->alive = false;
    }
    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_child->fd >= 0) {
            fds.push_back({m_child->fd, POLLIN, 0});
        }
    }
    void process_events(std::span<const pollfd> fds) override {
        m_child->events.push_back(fds.size());
    }
    std::optional<job::Clock::time_point> deadline() const override { return m_child->deadline; }
    void stop(int signo) override { m_child->stopped.push_back(signo); }
    void kill() override { m_child->stopped.push_back(SIGKILL); }
    void abandon() override {
        m_child->abandoned = true;
        if (!m_child->result) {
            m_child->end(job::Outcome::killed(SIGKILL));
        }
    }
    std::optional<job::Outcome> result() const override { return m_child->result; }

private:
    std::shared_ptr<Child> m_child;
};

} // namespace colossalai::test
