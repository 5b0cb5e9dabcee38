#include "colossalai/step/step.hpp"

#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/duration.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <type_traits>
#include <variant>

namespace colossalai::step {

using job::Outcome;
using output::Stream;

namespace {

// The longest line of the launcher's output held while waiting for its newline; a longer one is
// taken as it is (a label was long past). The relay's frames are far shorter.
constexpr std::size_t max_line = 1024 * 1024;

std::size_t index_of(Stream stream) {
    return stream == Stream::out ? 0 : 1;
}

} // namespace

Step::Step(Settings settings, std::unique_ptr<Engine> engine)
    : m_settings(std::move(settings)), m_engine(std::move(engine)), m_tasks(m_settings.tasks),
      m_ready_bound(m_engine->waits_for_release() ? m_engine->ready_bound() : std::nullopt) {}

// The launcher goes first (members end in reverse order): abandoned by its destructor, it closes
// its output, this step, whose reading still asks the engine.
Step::~Step() = default;

void Step::add(std::size_t rank, output::NodeOutput& sink, const job::NodeCommand& command) {
    m_tasks.at(rank).sink = &sink;
    m_tasks.at(rank).command = command;
}

void Step::go() {
    if (m_launcher || m_not_started) {
        return;
    }
    m_launcher = m_settings.spawn(m_settings.launcher, *this);
    if (m_ready_bound) {
        m_ready_by = m_settings.now() + m_ready_bound->within;
    }
    update();
}

void Step::collect_fds(std::vector<pollfd>& fds) {
    m_launcher_fds = 0;
    m_polled_helper = nullptr;
    if (!m_launcher) {
        return;
    }
    std::size_t begin = fds.size();
    if (!m_launcher_exit) {
        m_launcher->collect_fds(fds);
    }
    m_launcher_fds = fds.size() - begin;
    m_polled_helper = m_engine->helper();
    if (m_polled_helper != nullptr) {
        m_engine->helper()->collect_fds(fds);
    }
}

void Step::process_events(std::span<const pollfd> fds) {
    if (!m_launcher) {
        return;
    }
    std::size_t launcher_fds = std::min(m_launcher_fds, fds.size());
    if (!m_launcher_exit) {
        m_launcher->process_events(fds.first(launcher_fds));
    }
    // A helper started after collect_fds() (by a stop in between) has no entries yet.
    if (job::Process* helper = m_engine->helper()) {
        helper->process_events(helper == m_polled_helper ? fds.subspan(launcher_fds)
                                                         : fds.first(0));
    }
    m_engine->check(*this);
    update();
    check_ready_bound();
}

bool Step::has_work() const {
    if (!m_launcher) {
        return false;
    }
    const job::Process* helper = m_engine->helper();
    return (!m_launcher_exit && m_launcher->has_work()) ||
           (helper != nullptr && helper->has_work());
}

std::optional<job::Clock::time_point> Step::deadline() const {
    if (!m_launcher) {
        return std::nullopt;
    }
    const job::Process* helper = m_engine->helper();
    std::optional<job::Clock::time_point> earliest;
    for (std::optional<job::Clock::time_point> deadline :
         {m_launcher_exit ? std::nullopt : m_launcher->deadline(),
          helper != nullptr ? helper->deadline() : std::nullopt,
          awaiting_ready() ? m_ready_by : std::nullopt}) {
        if (deadline && (!earliest || *deadline < *earliest)) {
            earliest = deadline;
        }
    }
    return earliest;
}

std::optional<Outcome> Step::result(std::size_t rank) const {
    const Task& task = m_tasks[rank];
    if (!task.reported) {
        task.reported = compute_result(rank);
    }
    return task.reported;
}

std::optional<Outcome> Step::compute_result(std::size_t rank) const {
    const Task& task = m_tasks[rank];
    if (task.late) {
        return Outcome::cannot_run(*task.late, job::preflight_exit_status);
    }
    if (m_not_started) {
        return Outcome::not_started();
    }
    if (task.status && !task.open[0] && !task.open[1] &&
        (m_launcher_exit || others_running(rank))) {
        return task_outcome(task.failure, *task.status, m_delivered);
    }
    if (!m_launcher_exit) {
        return std::nullopt;
    }
    if (task.status) {
        return task_outcome(task.failure, *task.status, m_delivered);
    }
    if (m_stopped) {
        // Stopped before its wrapper named the step, or before the tasks that wait were let go:
        // its job never ran (the launcher cancelled the request, or the task before its job).
        // Else its wrapper ended without the job's status: SIGKILL (delivered, or
        // the launcher's when told to end the tasks) ends the wrapper with the job.
        if (!task.started || (m_engine->waits_for_release() && !m_released)) {
            return Outcome::not_started();
        }
        bool killed =
            m_launcher_ended_tasks || m_delivered.count(SIGKILL) != 0 || m_stop_signal == 0;
        return Outcome::killed(killed ? SIGKILL : m_stop_signal);
    }
    switch (m_launcher_exit->kind()) {
    case Outcome::Kind::exited: {
        int status = m_launcher_exit->code() == 0 ? 255 : m_launcher_exit->code();
        if (m_engine->waits_for_release() && !m_released) {
            // Ended by itself before the go (Open MPI when a daemon's ssh failed): no job ran.
            return Outcome::connection_lost(
                fmt::format("{} exited with exit code {} before {} ready", m_settings.launcher_name,
                            m_launcher_exit->code(),
                            task.ready ? "the other tasks were" : "its task there was"),
                status);
        }
        return Outcome::connection_lost(
            fmt::format("no exit status from the task ({} exit code {})", m_settings.launcher_name,
                        m_launcher_exit->code()),
            status);
    }
    case Outcome::Kind::killed:
        return Outcome::connection_lost(fmt::format(
            "{} was killed by signal {}", m_settings.launcher_name, m_launcher_exit->signal()));
    default: // the launcher could not be started: every task says why
        return *m_launcher_exit;
    }
}

// Either of the launcher's streams may carry either of a node's (mpirun's tasks write every
// frame on stderr): both of an open node's streams must have room.
bool Step::accepting(Stream stream) const {
    return std::all_of(m_tasks.begin(), m_tasks.end(), [stream](const Task& task) {
        return task.sink == nullptr || !task.open[index_of(stream)] ||
               (task.sink->accepting(Stream::out) && task.sink->accepting(Stream::err));
    });
}

void Step::write(Stream stream, std::string_view bytes) {
    std::string& buffer = m_buffers[index_of(stream)];
    buffer.append(bytes);
    std::size_t begin = 0;
    for (std::size_t end; (end = buffer.find('\n', begin)) != std::string::npos; begin = end + 1) {
        line(stream, std::string_view(buffer).substr(begin, end - begin));
    }
    buffer.erase(0, begin);
    if (buffer.size() > max_line) {
        line(stream, buffer);
        buffer.clear();
    }
    flush();
}

void Step::gather(Task& task, Stream stream, std::string_view bytes) {
    if (m_gathered_task != &task || m_gathered_stream != stream) {
        flush();
        m_gathered_task = &task;
        m_gathered_stream = stream;
    }
    m_gathered.append(bytes);
}

void Step::flush() {
    if (m_gathered_task != nullptr && !m_gathered.empty()) {
        m_gathered_task->sink->write(m_gathered_stream, m_gathered);
    }
    m_gathered.clear();
    m_gathered_task = nullptr;
}

void Step::notice(std::string_view text) {
    flush();
    m_settings.notice(text);
}

std::unique_ptr<job::Process> Step::spawn(const exec::SpawnRequest& request,
                                          output::NodeOutput& output) {
    return m_settings.spawn(request, output);
}

void Step::close(Stream stream) {
    std::string& buffer = m_buffers[index_of(stream)];
    if (!buffer.empty()) {
        line(stream, buffer);
        buffer.clear();
    }
    flush();
}

void Step::line(Stream stream, std::string_view text) {
    std::optional<LabelledLine> labelled = m_engine->read_label(text);
    if (!labelled) {
        notice(m_engine->notice(text));
        return;
    }
    task_line(stream, *labelled);
}

// Frames and markers say their node's rank themselves; the launcher's label, where it has one,
// only says which task any other line belongs to (slurmstepd's, once that task's start marker
// named its node).
void Step::task_line(Stream stream, const LabelledLine& labelled) {
    TaskLine read = read_task_line(labelled.text);
    std::size_t rank = std::visit(
        [this](const auto& said) {
            if constexpr (std::is_same_v<std::decay_t<decltype(said)>, Foreign>) {
                return m_tasks.size();
            } else {
                return said.rank;
            }
        },
        read);
    if (rank < m_tasks.size()) {
        m_tasks[rank].heard = true;
    }
    if (const auto* started = std::get_if<Started>(&read)) {
        if (rank < m_tasks.size()) {
            if (labelled.task && *labelled.task >= 0) {
                auto task = static_cast<std::size_t>(*labelled.task);
                if (m_rank_of.size() <= task) {
                    m_rank_of.resize(task + 1);
                }
                m_rank_of[task] = rank;
            }
            m_tasks[rank].started = true;
            if (m_handle.empty()) {
                m_handle = m_engine->step_handle(started->handle);
            }
            name(rank, started->node);
        }
        return;
    }
    if (const auto* failed = std::get_if<Failed>(&read); failed && rank < m_tasks.size()) {
        if (std::optional<job::PreflightFailure> failure =
                job::parse_failed_check(failed->what, m_tasks[rank].command);
            failure && m_tasks[rank].open[index_of(stream)]) {
            m_tasks[rank].failure = std::move(failure);
            return;
        }
    }
    if (std::holds_alternative<Ready>(read) && rank < m_tasks.size()) {
        ready(rank);
        return;
    }
    if (const auto* noticed = std::get_if<Noticed>(&read); noticed && rank < m_tasks.size()) {
        const Task& task = m_tasks[rank];
        if (std::optional<std::string> text =
                job::describe_node_notice(task.command.preflight.torch_pair, noticed->what)) {
            notice(
                fmt::format("colossalai: {}: {}\n", task.host.value_or(task.command.host), *text));
            return;
        }
    }
    if (const auto* checked = std::get_if<Rendezvous>(&read); checked && rank < m_tasks.size()) {
        Task& task = m_tasks[rank];
        if (job::is_failure(checked->result)) {
            if (!task.failure) {
                task.failure = checked->result;
            }
        } else if (checked->result.outcome == job::RendezvousOutcome::own_name_loopback) {
            notice(fmt::format("colossalai: warning: {}: {}\n",
                               task.host.value_or(task.command.host),
                               job::describe(checked->result)));
        }
        return; // listening, answered: the check's own progress
    }
    const auto* frame = std::get_if<Frame>(&read);
    const auto* exited = std::get_if<Exited>(&read);
    if ((frame == nullptr && exited == nullptr) || rank >= m_tasks.size()) {
        // Any other line is passed on whole, as the task's that the label names.
        frame = nullptr;
        exited = nullptr;
        rank = m_tasks.size();
        if (labelled.task && *labelled.task >= 0 &&
            static_cast<std::size_t>(*labelled.task) < m_rank_of.size() &&
            m_rank_of[static_cast<std::size_t>(*labelled.task)]) {
            rank = *m_rank_of[static_cast<std::size_t>(*labelled.task)];
        }
    }
    if (rank >= m_tasks.size() || !m_tasks[rank].open[index_of(stream)]) {
        // A line before the task named its node (slurmstepd's, or the wrapper's own error), or
        // the launcher's own line among the tasks' (one without a label).
        notice(m_engine->notice(labelled.task
                                    ? fmt::format("task {}: {}", *labelled.task, labelled.text)
                                    : std::string(labelled.text)));
        return;
    }
    Task& task = m_tasks[rank];
    if (exited != nullptr) {
        task.status = exited->status;
        end_stream(task, stream);
        return;
    }
    // A line's end reaches the output with its text (a `\r\n` line written as `text\r` and then
    // `\n` showed a progress bar's state first). A frame goes to the job's stream it says.
    if (frame != nullptr) {
        gather(task, frame->stream, frame->bytes);
    } else {
        gather(task, stream, std::string(labelled.text) + '\n');
    }
}

void Step::end_stream(Task& task, Stream stream) {
    bool was_open = task.open[0] || task.open[1];
    task.open[index_of(stream)] = false;
    if (was_open && !task.open[0] && !task.open[1] && task.sink != nullptr) {
        flush();
        task.sink->close(Stream::out);
        task.sink->close(Stream::err);
    }
}

// Once per node (the start marker comes on both streams): a node whose name the launcher chose.
void Step::name(std::size_t rank, std::string_view node) {
    Task& task = m_tasks[rank];
    if (!m_settings.names_hosts || task.host || node.empty() || task.sink == nullptr) {
        return;
    }
    flush(); // what came before the name keeps the prefix it was gathered under
    task.host = util::escape_control_bytes(node);
    task.sink->set_prefix(*task.host + ": ");
}

// Once every task is ready, and nothing stopped the step meanwhile: the engine lets them go.
void Step::ready(std::size_t rank) {
    m_tasks[rank].ready = true;
    if (m_released || m_stopped || m_launcher_exit) {
        return;
    }
    for (const Task& task : m_tasks) {
        if (!task.ready) {
            return;
        }
    }
    m_released = true;
    m_engine->release(*this);
}

bool Step::awaiting_ready() const {
    return m_ready_by && !m_released && !m_stopped && !m_launcher_exit;
}

// The launcher is killed rather than told to stop the tasks: mpiexec (Hydra) still waiting for a
// proxy whose ssh failed passes nothing on and never ends by itself. No task was let go, so no
// job started anywhere: a ready task is then not started (compute_result).
void Step::check_ready_bound() {
    if (!awaiting_ready() || m_settings.now() < *m_ready_by) {
        return;
    }
    std::string seconds = util::format_seconds(m_ready_bound->within);
    flush();
    for (Task& task : m_tasks) {
        if (task.ready || task.failure || task.status) {
            continue;
        }
        task.late = task.heard ? fmt::format("{} started its task, which was not ready within "
                                             "{} s: its preflight or its rendezvous check had "
                                             "not ended",
                                             m_settings.launcher_name, seconds)
                               : m_ready_bound->unheard;
        for (Stream stream : {Stream::out, Stream::err}) {
            if (task.open[index_of(stream)]) {
                end_stream(task, stream);
            }
        }
    }
    m_stopped = true;
    end_by_launcher(SIGKILL);
}

bool Step::others_running(std::size_t rank) const {
    for (std::size_t other = 0; other < m_tasks.size(); ++other) {
        const Task& task = m_tasks[other];
        if (other != rank && !task.reported && (!task.status || task.open[0] || task.open[1])) {
            return true;
        }
    }
    return false;
}

// After the launcher ended: every task's streams close.
void Step::update() {
    if (m_launcher_exit || !m_launcher) {
        return;
    }
    m_launcher_exit = m_launcher->result();
    if (!m_launcher_exit) {
        return;
    }
    if (!m_launcher_exit->reason().empty()) {
        notice(fmt::format("colossalai: {}: {}\n", m_settings.launcher_name,
                           m_launcher_exit->reason()));
    }
    close_all();
}

void Step::not_started() {
    if (!m_not_started) {
        m_not_started = true;
        close_all();
    }
}

void Step::close_all() {
    flush();
    for (Task& task : m_tasks) {
        for (Stream stream : {Stream::out, Stream::err}) {
            if (task.open[index_of(stream)]) {
                end_stream(task, stream);
            }
        }
    }
}

} // namespace colossalai::step

namespace colossalai::step {

// --- the stop sequence's generic part: Engine::deliver delivers ---

void Step::stop(int signo) {
    deliver(signo);
}

void Step::kill() {
    deliver(SIGKILL);
}

void Step::abandon() {
    if (!m_launcher) {
        not_started();
        return;
    }
    // SIGKILL to the launcher, which ends its tasks on every node (Slurm ends the step).
    m_stopped = true;
    m_launcher_ended_tasks = true;
    m_launcher->abandon();
    update();
}

void Step::deliver(int signo) {
    if (!m_launcher) {
        not_started();
        return;
    }
    if (m_launcher_exit || !m_delivered.insert(signo).second) {
        return;
    }
    m_stopped = true;
    if (signo != SIGKILL) {
        m_stop_signal = signo;
    }
    m_engine->deliver(*this, signo);
    m_engine->check(*this);
}

void Step::end_by_launcher(int signo) {
    m_launcher_ended_tasks = true;
    if (signo == SIGKILL) {
        m_launcher->kill();
    } else {
        m_launcher->stop(signo);
    }
}

void Step::signal_launcher(int signo) {
    m_launcher->stop(signo);
}

namespace {

// One node's view of the step: every call goes to the Step, with the node's rank where it is the
// node's own.
class TaskProcess : public job::Process {
public:
    TaskProcess(std::shared_ptr<Step> step, std::size_t rank)
        : m_step(std::move(step)), m_rank(rank) {}

    // The step's descriptors are polled through the transport, once for all nodes.
    void collect_fds(std::vector<pollfd>&) override {}
    void process_events(std::span<const pollfd>) override {}
    void stop(int signo) override { m_step->stop(signo); }
    void kill() override { m_step->kill(); }
    void abandon() override { m_step->abandon(); }
    std::optional<job::Outcome> result() const override { return m_step->result(m_rank); }
    void go() override { m_step->go(); }
    std::optional<std::string> host() const override { return m_step->host(m_rank); }

private:
    std::shared_ptr<Step> m_step;
    std::size_t m_rank;
};

} // namespace

StepTransport::StepTransport(Step::Settings settings, std::unique_ptr<Engine> engine)
    : m_step(std::make_shared<Step>(std::move(settings), std::move(engine))) {}

StepTransport::~StepTransport() = default;

std::unique_ptr<job::Process> StepTransport::start(const job::NodeCommand& command,
                                                   output::NodeOutput& output) {
    m_step->add(static_cast<std::size_t>(command.rank), output, command);
    return std::make_unique<TaskProcess>(m_step, static_cast<std::size_t>(command.rank));
}

} // namespace colossalai::step
