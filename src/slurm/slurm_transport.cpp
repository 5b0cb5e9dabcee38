#include "colossalai/slurm/slurm_transport.hpp"

#include "task_lines.hpp"

#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/srun_command.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <array>
#include <csignal>
#include <optional>
#include <set>
#include <variant>

namespace colossalai::slurm {

using job::Outcome;
using output::Stream;

namespace {

// The longest line of srun's output held while waiting for its newline; a longer one is taken
// as it is (a label was long past).
constexpr std::size_t max_line = 1024 * 1024;

size_t index_of(Stream stream) {
    return stream == Stream::out ? 0 : 1;
}

} // namespace

// The shared state of the nodes of one srun step. Single-threaded, like the launcher's loop.
class Step : public output::NodeOutput {
public:
    Step(std::vector<std::string> argv, std::size_t tasks, std::string working_directory,
         std::vector<std::string> launcher_environment, std::chrono::milliseconds grace,
         std::function<void(std::string_view)> notice,
         std::function<void(std::size_t, const std::string&)> named)
        : m_argv(std::move(argv)), m_working_directory(std::move(working_directory)),
          m_launcher_environment(std::move(launcher_environment)), m_grace(grace),
          m_notice(std::move(notice)), m_named(std::move(named)), m_tasks(tasks) {}

    // Every node's command has the same environment changes and flag variables: srun's
    // environment gets them.
    void add(size_t rank, output::NodeOutput& sink, const job::NodeCommand& command) {
        m_tasks.at(rank).sink = &sink;
        m_tasks.at(rank).command = command;
        m_environment = command.environment_changes;
        m_flag_environment = command.flag_environment;
    }

    // --- the node processes' calls, by rank ---

    void go() {
        if (m_srun || m_not_started) {
            return;
        }
        exec::SpawnRequest request;
        request.argv = m_argv;
        request.working_directory = m_working_directory;
        // srun passes its whole environment to the tasks (--export=ALL): the variables of -x,
        // --env-file and --network-interface go into it, those of --env-exclude stay out of it.
        request.environment = job::with_flag_environment(
            job::local_environment(m_launcher_environment, m_environment, true),
            m_flag_environment);
        m_srun = job::start_local_job(request, *this, m_grace);
        update();
    }

    void collect_fds(size_t rank, std::vector<pollfd>& fds) {
        if (m_srun && rank == owner()) {
            m_collector = rank;
            m_srun->collect_fds(fds);
        }
    }

    void process_events(size_t rank, std::span<const pollfd> fds) {
        if (m_srun && !m_srun_exit && rank == m_collector) {
            m_srun->process_events(fds);
            update();
        }
    }

    bool has_work(size_t rank) const {
        return m_srun && !m_srun_exit && rank == owner() && m_srun->has_work();
    }

    std::optional<job::Clock::time_point> deadline(size_t rank) const {
        return m_srun && !m_srun_exit && rank == owner() ? m_srun->deadline() : std::nullopt;
    }

    void signal(int signo) {
        if (!m_srun) {
            not_started();
            return;
        }
        // srun answers a first SIGINT with a status report only; SIGTERM it passes to every
        // task. SIGKILL ends srun, and with it the step.
        int sent = signo == SIGKILL ? SIGKILL : SIGTERM;
        if (m_srun_exit || !m_sent.insert(sent).second) {
            return;
        }
        if (m_stop_signal == 0) {
            m_stop_signal = sent;
        }
        m_srun->signal(sent);
    }

    void abandon() {
        if (!m_srun) {
            not_started();
            return;
        }
        m_srun->abandon();
        update();
    }

    // Once given, a task's result stays (the loop asks no more, and the next rank takes over
    // srun's descriptors).
    std::optional<Outcome> result(size_t rank) const {
        const Task& task = m_tasks[rank];
        if (!task.reported) {
            task.reported = compute_result(rank);
        }
        return task.reported;
    }

    std::optional<Outcome> compute_result(size_t rank) const {
        const Task& task = m_tasks[rank];
        if (m_not_started) {
            return Outcome::not_started();
        }
        if (task.status && !task.open[0] && !task.open[1] &&
            (m_srun_exit || others_running(rank))) {
            return task_outcome(task.failure, *task.status);
        }
        if (!m_srun_exit) {
            return std::nullopt;
        }
        if (task.status) {
            return task_outcome(task.failure, *task.status);
        }
        if (m_stop_signal != 0) {
            return Outcome::killed(m_stop_signal);
        }
        switch (m_srun_exit->kind()) {
        case Outcome::Kind::exited:
            return Outcome::connection_lost(
                fmt::format("no exit status from the task (srun exit code {})",
                            m_srun_exit->code()),
                m_srun_exit->code() == 0 ? 255 : m_srun_exit->code());
        case Outcome::Kind::killed:
            return Outcome::connection_lost(
                fmt::format("srun was killed by signal {}", m_srun_exit->signal()));
        default: // srun could not be started: every task says why
            return *m_srun_exit;
        }
    }

    // --- NodeOutput: srun's stdout and stderr ---

    bool accepting(Stream stream) const override {
        for (const Task& task : m_tasks) {
            if (task.sink != nullptr && task.open[index_of(stream)] &&
                !task.sink->accepting(stream)) {
                return false;
            }
        }
        return true;
    }

    void write(Stream stream, std::string_view bytes) override {
        std::string& buffer = m_buffers[index_of(stream)];
        buffer.append(bytes);
        size_t begin = 0;
        for (size_t end; (end = buffer.find('\n', begin)) != std::string::npos; begin = end + 1) {
            line(stream, std::string_view(buffer).substr(begin, end - begin), true);
        }
        buffer.erase(0, begin);
        if (buffer.size() > max_line) {
            line(stream, buffer, false);
            buffer.clear();
        }
    }

    void close(Stream stream) override {
        std::string& buffer = m_buffers[index_of(stream)];
        if (!buffer.empty()) {
            line(stream, buffer, false);
            buffer.clear();
        }
    }

private:
    struct Task {
        output::NodeOutput* sink = nullptr;
        job::NodeCommand command;                     // what a failed check names
        std::optional<job::PreflightFailure> failure; // the task's preflight failed
        std::array<bool, 2> open{true, true};
        std::optional<int> status;
        mutable std::optional<Outcome> reported;
        bool named = false;
    };

    void line(Stream stream, std::string_view text, bool newline) {
        SrunLine read = read_srun_line(text);
        if (const auto* message = std::get_if<SrunMessage>(&read)) {
            m_notice(run::srun_notice(message->text));
            return;
        }
        if (const auto* started = std::get_if<TaskStarted>(&read)) {
            if (started->start.rank >= 0 &&
                static_cast<size_t>(started->start.rank) < m_tasks.size()) {
                auto rank = static_cast<size_t>(started->start.rank);
                if (m_rank_of.size() <= static_cast<size_t>(started->task)) {
                    m_rank_of.resize(static_cast<size_t>(started->task) + 1);
                }
                m_rank_of[static_cast<size_t>(started->task)] = rank;
                name(rank, started->start.node);
            }
            return;
        }
        const auto& labelled = std::get<TaskText>(read);
        std::optional<size_t> rank;
        if (labelled.task >= 0 && static_cast<size_t>(labelled.task) < m_rank_of.size()) {
            rank = m_rank_of[static_cast<size_t>(labelled.task)];
        }
        Task* task = rank ? &m_tasks[*rank] : nullptr;
        if (task == nullptr || !task->open[index_of(stream)]) {
            // A line before the task named its node (slurmstepd's, or the wrapper's own error).
            m_notice(run::srun_notice(fmt::format("task {}: {}", labelled.task, labelled.text)));
            return;
        }
        TaskLine said = read_task_line(labelled.text, task->command);
        if (said.failure) {
            task->failure = std::move(said.failure);
            return;
        }
        if (said.exit_status) {
            if (!said.text.empty()) {
                task->sink->write(stream, said.text); // the job's last line, without its newline
            }
            task->status = *said.exit_status;
            task->open[index_of(stream)] = false;
            task->sink->close(stream);
            return;
        }
        task->sink->write(stream, said.text);
        if (newline) {
            task->sink->write(stream, "\n");
        }
    }

    // Once per node (the start marker comes on both streams): a node whose name srun chose.
    void name(size_t rank, std::string_view node) {
        Task& task = m_tasks[rank];
        if (!m_named || task.named || node.empty() || task.sink == nullptr) {
            return;
        }
        task.named = true;
        std::string host = util::escape_control_bytes(node);
        task.sink->set_prefix(host + ": ");
        m_named(rank, host);
    }

    // The lowest rank still without a result: it carries srun's descriptors to the loop.
    size_t owner() const {
        for (size_t rank = 0; rank < m_tasks.size(); ++rank) {
            if (!result(rank)) {
                return rank;
            }
        }
        return m_tasks.size();
    }

    bool others_running(size_t rank) const {
        for (size_t other = 0; other < m_tasks.size(); ++other) {
            const Task& task = m_tasks[other];
            if (other != rank && !task.reported && (!task.status || task.open[0] || task.open[1])) {
                return true;
            }
        }
        return false;
    }

    // After srun ended: every task's streams close.
    void update() {
        if (m_srun_exit || !m_srun) {
            return;
        }
        m_srun_exit = m_srun->result();
        if (!m_srun_exit) {
            return;
        }
        if (!m_srun_exit->reason().empty()) {
            m_notice(fmt::format("colossalai: srun: {}\n", m_srun_exit->reason()));
        }
        close_all();
    }

    void not_started() {
        if (!m_not_started) {
            m_not_started = true;
            close_all();
        }
    }

    void close_all() {
        for (Task& task : m_tasks) {
            for (Stream stream : {Stream::out, Stream::err}) {
                if (task.sink != nullptr && task.open[index_of(stream)]) {
                    task.open[index_of(stream)] = false;
                    task.sink->close(stream);
                }
            }
        }
    }

    std::vector<std::string> m_argv;
    job::EnvironmentChanges m_environment;
    std::vector<job::EnvVar> m_flag_environment;
    std::string m_working_directory;
    std::vector<std::string> m_launcher_environment;
    std::chrono::milliseconds m_grace;
    std::function<void(std::string_view)> m_notice;
    std::function<void(std::size_t, const std::string&)> m_named;
    std::vector<Task> m_tasks;
    std::vector<std::optional<size_t>> m_rank_of; // srun task id -> node rank
    std::array<std::string, 2> m_buffers;         // partial lines of srun's stdout, stderr
    std::unique_ptr<job::Process> m_srun;
    std::optional<Outcome> m_srun_exit;
    size_t m_collector = 0;
    std::set<int> m_sent;
    int m_stop_signal = 0;
    bool m_not_started = false;
};

namespace {

class TaskProcess : public job::Process {
public:
    TaskProcess(std::shared_ptr<Step> step, size_t rank) : m_step(std::move(step)), m_rank(rank) {}

    void collect_fds(std::vector<pollfd>& fds) override { m_step->collect_fds(m_rank, fds); }
    void process_events(std::span<const pollfd> fds) override {
        m_step->process_events(m_rank, fds);
    }
    bool has_work() const override { return m_step->has_work(m_rank); }
    std::optional<job::Clock::time_point> deadline() const override {
        return m_step->deadline(m_rank);
    }
    void signal(int signo) override { m_step->signal(signo); }
    void abandon() override { m_step->abandon(); }
    std::optional<Outcome> result() const override { return m_step->result(m_rank); }
    void go() override { m_step->go(); }

private:
    std::shared_ptr<Step> m_step;
    size_t m_rank;
};

} // namespace

SlurmTransport::SlurmTransport(std::vector<std::string> srun_argv, std::size_t tasks,
                               std::string working_directory,
                               std::vector<std::string> launcher_environment,
                               std::chrono::milliseconds kill_grace,
                               std::function<void(std::string_view)> notice,
                               std::function<void(std::size_t, const std::string&)> named)
    : m_step(std::make_shared<Step>(std::move(srun_argv), tasks, std::move(working_directory),
                                    std::move(launcher_environment), kill_grace, std::move(notice),
                                    std::move(named))) {}

SlurmTransport::~SlurmTransport() = default;

std::unique_ptr<job::Process> SlurmTransport::start(const job::NodeCommand& command,
                                                    output::NodeOutput& output) {
    m_step->add(static_cast<size_t>(command.rank), output, command);
    return std::make_unique<TaskProcess>(m_step, static_cast<size_t>(command.rank));
}

} // namespace colossalai::slurm
