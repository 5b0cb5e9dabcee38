#include "colossalai/slurm/slurm_transport.hpp"

#include "task_lines.hpp"

#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/signal_name.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <deque>

// srun as a member of the step family (step/step.hpp): its lines' `--label`, its notices, and
// its stop delivery (the table under "The seam" in docs/design.md): a stop or a kill reaches
// every process of the step through scancel children, one at a time, once the step is known,
// and srun's request before that; a scancel that fails hands the signal to srun.

namespace colossalai::slurm {

using job::Outcome;
using output::Stream;

namespace {

// What is kept of a failed scancel's output for its notice.
constexpr std::size_t max_scancel_text = 4096;

// scancel's name for a signal: `TERM`, or the number of one without a name.
std::string scancel_signal(int signo) {
    std::optional<std::string_view> name = util::short_signal_name(signo);
    return name ? std::string(*name) : std::to_string(signo);
}

// scancel's answer for a step slurmctld does not know (any more): ESLURM_INVALID_JOB_ID.
bool step_gone(std::string_view said) {
    return said.find("Invalid job id specified") != std::string_view::npos;
}

// What scancel prints: kept for the notice when it fails.
class Collected : public output::NodeOutput {
public:
    bool accepting(Stream) const override { return true; }
    void write(Stream, std::string_view bytes) override {
        text.append(bytes.substr(0, max_scancel_text - std::min(text.size(), max_scancel_text)));
    }
    void close(Stream) override {}
    std::string text;
};

class SrunEngine : public step::Engine {
public:
    explicit SrunEngine(std::string scancel) : m_scancel_program(std::move(scancel)) {}

    std::optional<step::LabelledLine> read_label(std::string_view line) const override {
        std::optional<LabelledLine> labelled = parse_labelled_line(line);
        if (!labelled) {
            return std::nullopt;
        }
        return step::LabelledLine{labelled->task, labelled->text};
    }
    std::string notice(std::string_view line) const override { return srun_notice(line); }
    std::string step_handle(std::string_view handle) const override { return slurm_step(handle); }

    // Once the step is known: scancel of the signal; before that, srun's request ends.
    void deliver(step::Step& step, int signo) override {
        if (step.handle().empty()) {
            end_request(step);
            return;
        }
        m_queue.push_back(signo);
        start_scancel(step);
    }
    // Every task is ready (so every one named the step): the go, SIGUSR1 to every process of
    // the step, through scancel as the stop goes (srun's own forwarding of a signal it gets is
    // not relied on).
    void release(step::Step& step) override {
        m_queue.push_back(SIGUSR1);
        start_scancel(step);
    }
    bool waits_for_release() const override { return true; }
    job::Process* helper() override { return m_scancel.get(); }
    void check(step::Step& step) override { check_scancel(step); }

private:
    // No task has named the step: srun still waits for its resources (queued, or for a step of
    // an allocation), or is starting the tasks. SIGTERM makes srun cancel a waiting request
    // (measured: `srun: Job allocation 5 has been revoked`, `srun: Cancelled pending job step
    // with signal 15`); SIGKILL would leave it queued. A step being started is ended with SIGKILL
    // by srun.
    static void end_request(step::Step& step) {
        if (!step.ended_by_launcher()) {
            step.end_by_launcher(SIGTERM);
        }
    }

    void start_scancel(step::Step& step) {
        if (m_scancel || m_queue.empty()) {
            return;
        }
        m_signal = m_queue.front();
        m_queue.pop_front();
        exec::SpawnRequest request;
        request.argv = {m_scancel_program, "--signal=" + scancel_signal(m_signal), step.handle()};
        request.environment = step.launcher_request().environment;
        request.working_directory = step.launcher_request().working_directory;
        m_output.text.clear();
        m_scancel = step.spawn(request, m_output);
    }

    // A scancel that ended: the next one, or, when it failed while srun runs, srun instead.
    void check_scancel(step::Step& step) {
        while (m_scancel) {
            std::optional<Outcome> done = m_scancel->result();
            if (!done) {
                return;
            }
            m_scancel.reset();
            // A step that ended between the stop and scancel's request (its last task exited,
            // and slurmctld no longer knows the step) is not a failure to stop it: srun ends by
            // itself, and the launcher's grace period still bounds the wait (its kill reaches
            // srun). Seen under load: the other task exited 3, the TERM reached this one, and
            // scancel still said `Invalid job id specified`; stopping srun then made the summary
            // read SIGKILL.
            if (!done->success() && !step.launcher_ended() && m_signal != SIGKILL &&
                step_gone(m_output.text)) {
                start_scancel(step);
                continue;
            }
            if (!done->success() && !step.launcher_ended()) {
                std::string said(util::trim(m_output.text));
                said = said.substr(0, said.find('\n'));
                step.notice(fmt::format(
                    "colossalai: scancel --signal={} {} failed ({}{}); {}\n",
                    scancel_signal(m_signal), step.handle(), job::describe(*done),
                    said.empty() ? "" : ": " + util::escape_control_bytes(said),
                    m_signal == SIGKILL ? "killing srun instead"
                                        : "stopping srun instead (its tasks get SIGKILL)"));
                m_queue.clear();
                step.end_by_launcher(m_signal == SIGKILL ? SIGKILL : SIGTERM);
                return;
            }
            start_scancel(step);
        }
    }

    std::string m_scancel_program;
    // scancel: one at a time, the signals waiting for it in order. Its output is declared before
    // it: a scancel still running when the step is destroyed (the launcher ends while it runs)
    // is abandoned by its destructor, which closes that output (UBSan saw it used after its end).
    std::deque<int> m_queue;
    Collected m_output;
    std::unique_ptr<job::Process> m_scancel;
    int m_signal = 0;
};

// Every node's command has the same working directory, environment changes and flag variables:
// srun's environment gets them, and srun passes its whole environment to the tasks
// (--export=ALL), without what --env-exclude names.
step::Step::Settings srun_settings(const run::Plan& plan, const run::SrunLaunch& launch,
                                   std::function<void(std::string_view)> notice,
                                   step::Spawn spawn) {
    step::Step::Settings settings = step::local_launcher_settings(
        srun_command(plan, launch), "srun", plan.nodes, plan.launcher_environment,
        plan.timings.kill_grace, std::move(notice), std::move(spawn));
    settings.names_hosts = launch.allocates;
    return settings;
}

} // namespace

SlurmTransport::SlurmTransport(const run::Plan& plan, const run::SrunLaunch& launch,
                               std::function<void(std::string_view)> notice, Spawn spawn)
    : step::StepTransport(srun_settings(plan, launch, std::move(notice), std::move(spawn)),
                          std::make_unique<SrunEngine>("scancel")) {}

} // namespace colossalai::slurm
