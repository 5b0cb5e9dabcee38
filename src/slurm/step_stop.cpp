#include "step.hpp"

#include "colossalai/util/signal_name.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>

// Step's stop sequence (the table under "The seam" in docs/design.md): a stop or a kill reaches
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

} // namespace

void Step::Collected::write(Stream, std::string_view bytes) {
    text.append(bytes.substr(0, max_scancel_text - std::min(text.size(), max_scancel_text)));
}

void Step::stop(int signo) {
    deliver(signo);
}

void Step::kill() {
    deliver(SIGKILL);
}

void Step::abandon() {
    if (!m_srun) {
        not_started();
        return;
    }
    // SIGKILL to srun, which Slurm answers by ending the step on every node.
    m_stopped = true;
    m_srun_ended_step = true;
    m_srun->abandon();
    update();
}

// A stop or a kill: to every process of the step once the step is known, else to srun's
// request.
void Step::deliver(int signo) {
    if (!m_srun) {
        not_started();
        return;
    }
    if (m_srun_exit || !m_delivered.insert(signo).second) {
        return;
    }
    m_stopped = true;
    if (signo != SIGKILL) {
        m_stop_signal = signo;
    }
    if (m_step.empty()) {
        end_request();
        return;
    }
    m_scancel_queue.push_back(signo);
    start_scancel();
}

// No task has named the step: srun still waits for its resources (queued, or for a step of an
// allocation), or is starting the tasks. SIGTERM makes srun cancel a waiting request (measured:
// `srun: Job allocation 5 has been revoked`, `srun: Cancelled pending job step with signal
// 15`); SIGKILL would leave it queued. A step being started is ended with SIGKILL by srun.
void Step::end_request() {
    if (!m_srun_ended_step) {
        m_srun_ended_step = true;
        m_srun->stop(SIGTERM);
    }
}

void Step::start_scancel() {
    if (m_scancel || m_scancel_queue.empty()) {
        return;
    }
    m_scancel_signal = m_scancel_queue.front();
    m_scancel_queue.pop_front();
    exec::SpawnRequest request;
    request.argv = {m_settings.scancel, "--signal=" + scancel_signal(m_scancel_signal), m_step};
    request.environment = m_settings.srun.environment;
    request.working_directory = m_settings.srun.working_directory;
    m_scancel_output.text.clear();
    m_scancel = m_settings.spawn(request, m_scancel_output);
    check_scancel();
}

// A scancel that ended: the next one, or, when it failed while srun runs, srun instead.
void Step::check_scancel() {
    while (m_scancel) {
        std::optional<Outcome> done = m_scancel->result();
        if (!done) {
            return;
        }
        m_scancel.reset();
        // A step that ended between the stop and scancel's request (its last task exited, and
        // slurmctld no longer knows the step) is not a failure to stop it: srun ends by itself,
        // and the launcher's grace period still bounds the wait (its kill reaches srun). Seen
        // under load: the other task exited 3, the TERM reached this one, and scancel still said
        // `Invalid job id specified`; stopping srun then made the summary read SIGKILL.
        if (!done->success() && !m_srun_exit && m_scancel_signal != SIGKILL &&
            step_gone(m_scancel_output.text)) {
            start_scancel();
            continue;
        }
        if (!done->success() && !m_srun_exit) {
            std::string said(util::trim(m_scancel_output.text));
            said = said.substr(0, said.find('\n'));
            notice(fmt::format("colossalai: scancel --signal={} {} failed ({}{}); {}\n",
                               scancel_signal(m_scancel_signal), m_step, job::describe(*done),
                               said.empty() ? "" : ": " + util::escape_control_bytes(said),
                               m_scancel_signal == SIGKILL
                                   ? "killing srun instead"
                                   : "stopping srun instead (its tasks get SIGKILL)"));
            m_scancel_queue.clear();
            m_srun_ended_step = true;
            if (m_scancel_signal == SIGKILL) {
                m_srun->kill();
            } else {
                m_srun->stop(SIGTERM);
            }
            return;
        }
        start_scancel();
    }
}

} // namespace colossalai::slurm
