#include "step.hpp"

#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <type_traits>
#include <variant>

namespace colossalai::slurm {

using job::Outcome;
using output::Stream;

namespace {

// The longest line of srun's output held while waiting for its newline; a longer one is taken
// as it is (a label was long past). The relay's frames are far shorter.
constexpr std::size_t max_line = 1024 * 1024;

std::size_t index_of(Stream stream) {
    return stream == Stream::out ? 0 : 1;
}

} // namespace

Step::Step(Settings settings) : m_settings(std::move(settings)), m_tasks(m_settings.tasks) {}

void Step::add(std::size_t rank, output::NodeOutput& sink, const job::NodeCommand& command) {
    m_tasks.at(rank).sink = &sink;
    m_tasks.at(rank).command = command;
}

void Step::go() {
    if (m_srun || m_not_started) {
        return;
    }
    m_srun = m_settings.spawn(m_settings.srun, *this);
    update();
}

void Step::collect_fds(std::size_t rank, std::vector<pollfd>& fds) {
    if (!m_srun || rank != owner()) {
        return;
    }
    m_collector = rank;
    std::size_t begin = fds.size();
    if (!m_srun_exit) {
        m_srun->collect_fds(fds);
    }
    m_srun_fds = fds.size() - begin;
    m_polled_scancel = m_scancel.get();
    if (m_scancel) {
        m_scancel->collect_fds(fds);
    }
}

void Step::process_events(std::size_t rank, std::span<const pollfd> fds) {
    if (!m_srun || rank != m_collector) {
        return;
    }
    std::size_t srun_fds = std::min(m_srun_fds, fds.size());
    if (!m_srun_exit) {
        m_srun->process_events(fds.first(srun_fds));
    }
    // A scancel started after collect_fds() (by a stop in between) has no entries yet.
    if (m_scancel) {
        m_scancel->process_events(m_scancel.get() == m_polled_scancel ? fds.subspan(srun_fds)
                                                                      : fds.first(0));
    }
    check_scancel();
    update();
}

bool Step::has_work(std::size_t rank) const {
    if (!m_srun || rank != owner()) {
        return false;
    }
    return (!m_srun_exit && m_srun->has_work()) || (m_scancel && m_scancel->has_work());
}

std::optional<job::Clock::time_point> Step::deadline(std::size_t rank) const {
    if (!m_srun || rank != owner()) {
        return std::nullopt;
    }
    std::optional<job::Clock::time_point> srun = m_srun_exit ? std::nullopt : m_srun->deadline();
    std::optional<job::Clock::time_point> scancel =
        m_scancel ? m_scancel->deadline() : std::nullopt;
    if (!srun || !scancel) {
        return srun ? srun : scancel;
    }
    return std::min(*srun, *scancel);
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
    if (m_not_started) {
        return Outcome::not_started();
    }
    if (task.status && !task.open[0] && !task.open[1] && (m_srun_exit || others_running(rank))) {
        return step::task_outcome(task.failure, *task.status, m_delivered);
    }
    if (!m_srun_exit) {
        return std::nullopt;
    }
    if (task.status) {
        return step::task_outcome(task.failure, *task.status, m_delivered);
    }
    if (m_stopped) {
        // Stopped before its wrapper named the step: its job never ran (srun cancelled the
        // request). Else its wrapper ended without the job's status: SIGKILL (scancel's, or
        // srun's when told to end the step) ends the wrapper with the job.
        if (!task.started) {
            return Outcome::not_started();
        }
        bool killed = m_srun_ended_step || m_delivered.count(SIGKILL) != 0 || m_stop_signal == 0;
        return Outcome::killed(killed ? SIGKILL : m_stop_signal);
    }
    switch (m_srun_exit->kind()) {
    case Outcome::Kind::exited:
        return Outcome::connection_lost(
            fmt::format("no exit status from the task (srun exit code {})", m_srun_exit->code()),
            m_srun_exit->code() == 0 ? 255 : m_srun_exit->code());
    case Outcome::Kind::killed:
        return Outcome::connection_lost(
            fmt::format("srun was killed by signal {}", m_srun_exit->signal()));
    default: // srun could not be started: every task says why
        return *m_srun_exit;
    }
}

bool Step::accepting(Stream stream) const {
    return std::all_of(m_tasks.begin(), m_tasks.end(), [stream](const Task& task) {
        return task.sink == nullptr || !task.open[index_of(stream)] || task.sink->accepting(stream);
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

void Step::close(Stream stream) {
    std::string& buffer = m_buffers[index_of(stream)];
    if (!buffer.empty()) {
        line(stream, buffer);
        buffer.clear();
    }
    flush();
}

void Step::line(Stream stream, std::string_view text) {
    std::optional<LabelledLine> labelled = parse_labelled_line(text);
    if (!labelled) {
        notice(srun_notice(text));
        return;
    }
    // Frames and markers say their node's rank themselves; srun's label only says which task a
    // line of slurmstepd's belongs to (once that task's start marker named its node).
    step::TaskLine read = step::read_task_line(labelled->text);
    std::size_t rank = std::visit(
        [this](const auto& said) {
            if constexpr (std::is_same_v<std::decay_t<decltype(said)>, step::Foreign>) {
                return m_tasks.size();
            } else {
                return said.rank;
            }
        },
        read);
    if (const auto* started = std::get_if<step::Started>(&read)) {
        if (rank < m_tasks.size()) {
            auto task = static_cast<std::size_t>(labelled->task);
            if (m_rank_of.size() <= task) {
                m_rank_of.resize(task + 1);
            }
            m_rank_of[task] = rank;
            m_tasks[rank].started = true;
            if (m_step.empty()) {
                m_step = slurm_step(started->handle);
            }
            name(rank, started->node);
        }
        return;
    }
    if (const auto* failed = std::get_if<step::Failed>(&read); failed && rank < m_tasks.size()) {
        if (std::optional<job::PreflightFailure> failure =
                job::parse_failed_check(failed->what, m_tasks[rank].command);
            failure && m_tasks[rank].open[index_of(stream)]) {
            m_tasks[rank].failure = std::move(failure);
            return;
        }
    }
    const auto* frame = std::get_if<step::Frame>(&read);
    const auto* exited = std::get_if<step::Exited>(&read);
    if ((frame == nullptr && exited == nullptr) || rank >= m_tasks.size()) {
        // Any other line is passed on whole, as the task's that srun's label names.
        frame = nullptr;
        exited = nullptr;
        auto task = static_cast<std::size_t>(labelled->task);
        rank = task < m_rank_of.size() && m_rank_of[task] ? *m_rank_of[task] : m_tasks.size();
    }
    if (rank >= m_tasks.size() || !m_tasks[rank].open[index_of(stream)]) {
        // A line before the task named its node (slurmstepd's, or the wrapper's own error).
        notice(srun_notice(fmt::format("task {}: {}", labelled->task, labelled->text)));
        return;
    }
    Task& task = m_tasks[rank];
    if (exited != nullptr) {
        flush();
        task.status = exited->status;
        task.open[index_of(stream)] = false;
        task.sink->close(stream);
        return;
    }
    // A line's end reaches the output with its text (a `\r\n` line written as `text\r` and then
    // `\n` showed a progress bar's state first).
    gather(task, stream, frame != nullptr ? frame->bytes : std::string(labelled->text) + '\n');
}

// Once per node (the start marker comes on both streams): a node whose name srun chose.
void Step::name(std::size_t rank, std::string_view node) {
    Task& task = m_tasks[rank];
    if (!m_settings.named || task.named || node.empty() || task.sink == nullptr) {
        return;
    }
    task.named = true;
    flush(); // what came before the name keeps the prefix it was gathered under
    std::string host = util::escape_control_bytes(node);
    task.sink->set_prefix(host + ": ");
    m_settings.named(rank, host);
}

// The lowest rank still without a result: it carries srun's descriptors to the loop.
std::size_t Step::owner() const {
    for (std::size_t rank = 0; rank < m_tasks.size(); ++rank) {
        if (!result(rank)) {
            return rank;
        }
    }
    return m_tasks.size();
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

// After srun ended: every task's streams close.
void Step::update() {
    if (m_srun_exit || !m_srun) {
        return;
    }
    m_srun_exit = m_srun->result();
    if (!m_srun_exit) {
        return;
    }
    if (!m_srun_exit->reason().empty()) {
        notice(fmt::format("colossalai: srun: {}\n", m_srun_exit->reason()));
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
            if (task.sink != nullptr && task.open[index_of(stream)]) {
                task.open[index_of(stream)] = false;
                task.sink->close(stream);
            }
        }
    }
}

} // namespace colossalai::slurm
