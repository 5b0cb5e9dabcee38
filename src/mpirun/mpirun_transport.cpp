#include "colossalai/mpirun/mpirun_transport.hpp"

#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <csignal>

namespace colossalai::mpirun {

namespace {

// mpirun's lines have no label: a task's line is read by the rank it carries, any other is
// mpirun's (its daemons' messages, ssh's errors).
class MpirunEngine : public step::Engine {
public:
    MpirunEngine(run::MpiKind mpi, std::chrono::milliseconds ready_within)
        : m_signals(task_signals(mpi)),
          m_ready{ready_within,
                  fmt::format("mpirun started no task there within {} s: is its sshd reachable "
                              "from this machine{}?",
                              util::format_seconds(ready_within),
                              mpi == run::MpiKind::open_mpi ? " and from the other nodes" : "")} {}

    std::optional<step::LabelledLine> read_label(std::string_view line) const override {
        return step::LabelledLine{std::nullopt, line};
    }
    // Control bytes escaped (mpirun relays its daemons' and ssh's text), a trailing \r dropped.
    std::string notice(std::string_view line) const override {
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        return fmt::format("colossalai: mpirun: {}\n", util::escape_control_bytes(line));
    }
    std::string step_handle(std::string_view) const override { return {}; }

    // The stop and the kill reach every task's wrapper through mpirun, which forwards them;
    // before the jobs were let go, either is the kill, which ends the waiting tasks. Where the
    // kill is a second stop (Open MPI) and no stop went before it, mpirun itself is killed: its
    // daemons then end every task's process group.
    void deliver(step::Step& step, int signo) override {
        if (signo != SIGKILL) {
            m_stopped = true;
            step.signal_launcher(m_released ? m_signals.stop : m_signals.kill);
        } else if (m_signals.kill == m_signals.stop && !m_stopped && m_released) {
            step.end_by_launcher(SIGKILL);
        } else {
            step.signal_launcher(m_signals.kill);
        }
    }
    // Every task is ready: their jobs start.
    void release(step::Step& step) override {
        m_released = true;
        step.signal_launcher(m_signals.go);
    }
    bool waits_for_release() const override { return true; }
    // Neither MPI bounds its start: Hydra waits for ever for a proxy whose ssh failed, and Open
    // MPI for an ssh that hangs.
    std::optional<step::ReadyBound> ready_bound() const override { return m_ready; }

private:
    TaskSignals m_signals;
    step::ReadyBound m_ready;
    bool m_released = false;
    bool m_stopped = false;
};

} // namespace

std::chrono::milliseconds ready_bound(const run::Plan& plan) {
    std::chrono::milliseconds check =
        plan.rendezvous ? 2 * plan.rendezvous->bound : std::chrono::milliseconds(0);
    return 3 * plan.timings.ssh_timeout + check;
}

MpirunTransport::MpirunTransport(const run::Plan& plan, const run::MpirunLaunch& launch,
                                 std::function<void(std::string_view)> notice, step::Spawn spawn)
    : step::StepTransport(step::local_launcher_settings(mpirun_command(plan, launch), "mpirun",
                                                        plan.nodes, plan.launcher_environment,
                                                        plan.timings.kill_grace, std::move(notice),
                                                        std::move(spawn)),
                          std::make_unique<MpirunEngine>(launch.mpi, ready_bound(plan))) {}

} // namespace colossalai::mpirun
