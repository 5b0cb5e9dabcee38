#include "colossalai/job/local_transport.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_preflight.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/read_some.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace colossalai::job {

using exec::SpawnedJob;
using exec::SpawnRequest;

namespace {

using output::Stream;

// A job that could not be started: its result is known at once.
class FailedProcess : public Process {
public:
    explicit FailedProcess(Outcome result) : m_result(std::move(result)) {}
    void collect_fds(std::vector<pollfd>&) override {}
    void process_events(std::span<const pollfd>) override {}
    void stop(int) override {}
    void kill() override {}
    void abandon() override {}
    std::optional<Outcome> result() const override { return m_result; }

private:
    Outcome m_result;
};

class LocalProcess : public Process {
public:
    LocalProcess(SpawnedJob job, output::NodeOutput& output, std::chrono::milliseconds grace)
        : m_job(std::move(job)), m_output(output), m_grace(grace) {
        m_pidfd = exec::open_pidfd(m_job.pid);
        try {
            m_guardian = exec::spawn_guardian(m_job.pid, grace);
        } catch (...) {
            abandon(); // an unguarded job must not run
            throw;
        }
    }

    ~LocalProcess() override {
        abandon();
        if (m_guardian.pid > 0) {
            ::waitpid(m_guardian.pid, nullptr, WNOHANG);
        }
    }

    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_job.out_fd && m_output.accepting(Stream::out)) {
            fds.push_back({m_job.out_fd.get(), POLLIN, 0});
        }
        if (m_job.err_fd && m_output.accepting(Stream::err)) {
            fds.push_back({m_job.err_fd.get(), POLLIN, 0});
        }
        if (!m_exit && m_pidfd) {
            fds.push_back({m_pidfd.get(), POLLIN, 0});
        }
    }

    void process_events(std::span<const pollfd> fds) override {
        if (util::polled(fds, m_job.out_fd)) {
            drain(m_job.out_fd, Stream::out);
        }
        if (util::polled(fds, m_job.err_fd)) {
            drain(m_job.err_fd, Stream::err);
        }
        if (util::polled(fds, m_pidfd)) {
            reap(false);
        }
        if (!m_exit && !m_pidfd) {
            reap(false); // no pidfd (old kernel): poll the status
        }
        if (m_exit && m_streams_deadline && Clock::now() >= *m_streams_deadline) {
            // Something outside the job's group still holds its output open: stop waiting.
            close_stream(m_job.out_fd, Stream::out);
            close_stream(m_job.err_fd, Stream::err);
        }
    }

    std::optional<Clock::time_point> deadline() const override {
        if (!m_exit && !m_pidfd) {
            return Clock::now() + std::chrono::milliseconds(50);
        }
        return m_exit && (m_job.out_fd || m_job.err_fd) ? m_streams_deadline : std::nullopt;
    }

    // Stop and kill: the signal to the job's process group, which the job leads.
    void stop(int signo) override {
        if (!m_exit) {
            ::kill(-m_job.pid, signo);
        }
    }

    void kill() override { stop(SIGKILL); }

    void abandon() override {
        if (!m_exit) {
            ::kill(-m_job.pid, SIGKILL);
            reap(true);
        }
        close_stream(m_job.out_fd, Stream::out);
        close_stream(m_job.err_fd, Stream::err);
    }

    std::optional<Outcome> result() const override {
        if (m_exit && !m_job.out_fd && !m_job.err_fd) {
            return m_exit;
        }
        return std::nullopt;
    }

private:
    void drain(util::Fd& fd, Stream stream) {
        char buffer[16384];
        while (fd && m_output.accepting(stream)) {
            std::string_view bytes = util::read_some(fd, buffer);
            if (bytes.empty()) {
                if (!fd) { // EOF or a read error
                    m_output.close(stream);
                }
                return;
            }
            m_output.write(stream, bytes);
        }
    }

    void close_stream(util::Fd& fd, Stream stream) {
        if (fd) {
            fd.reset();
            m_output.close(stream);
        }
    }

    void reap(bool block) {
        std::optional<int> status = exec::reap_child(m_job.pid, block);
        if (!status) {
            return;
        }
        m_exit = WIFSIGNALED(*status) ? Outcome::killed(WTERMSIG(*status))
                                      : Outcome::exited(WEXITSTATUS(*status));
        m_pidfd.reset();
        m_guardian.watch_fd.reset(); // the guardian now stops what the job left in its group
        m_streams_deadline = Clock::now() + m_grace + std::chrono::seconds(1);
    }

    SpawnedJob m_job;
    output::NodeOutput& m_output;
    std::chrono::milliseconds m_grace;
    util::Fd m_pidfd; // none on kernels before 5.3: waitpid() is polled then
    exec::Guardian m_guardian;
    std::optional<Outcome> m_exit;
    std::optional<Clock::time_point> m_streams_deadline;
};

// A local job is ready at once but starts only at go(), with the remote ones.
class PendingLocalProcess : public Process {
public:
    PendingLocalProcess(SpawnRequest request, output::NodeOutput& output,
                        std::chrono::milliseconds grace)
        : m_request(std::move(request)), m_output(output), m_grace(grace) {}

    void go() override {
        if (!m_result) { // stopped before: nothing starts
            m_job = start_local_job(m_request, m_output, m_grace);
        }
    }
    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_job) {
            m_job->collect_fds(fds);
        }
    }
    void process_events(std::span<const pollfd> fds) override {
        if (m_job) {
            m_job->process_events(fds);
        }
    }
    bool has_work() const override { return m_job && m_job->has_work(); }
    std::optional<Clock::time_point> deadline() const override {
        return m_job ? m_job->deadline() : std::nullopt;
    }
    void stop(int signo) override {
        if (m_job) {
            m_job->stop(signo);
        } else if (!m_result) {
            not_started();
        }
    }
    void kill() override {
        if (m_job) {
            m_job->kill();
        } else if (!m_result) {
            not_started();
        }
    }
    void abandon() override {
        if (m_job) {
            m_job->abandon();
        } else if (!m_result) {
            not_started();
        }
    }
    std::optional<Outcome> result() const override { return m_job ? m_job->result() : m_result; }

private:
    void not_started() {
        m_output.close(Stream::out);
        m_output.close(Stream::err);
        m_result = Outcome::not_started();
    }

    SpawnRequest m_request;
    output::NodeOutput& m_output;
    std::chrono::milliseconds m_grace;
    std::unique_ptr<Process> m_job;
    std::optional<Outcome> m_result;
};

} // namespace

std::unique_ptr<Process> ended_process(Outcome result) {
    return std::make_unique<FailedProcess>(std::move(result));
}

std::unique_ptr<Process> start_local_job(const SpawnRequest& request, output::NodeOutput& output,
                                         std::chrono::milliseconds kill_grace) {
    try {
        return std::make_unique<LocalProcess>(exec::spawn_job(request), output, kill_grace);
    } catch (const Error& e) {
        return ended_process(Outcome::cannot_run(e.what()));
    }
}

std::unique_ptr<Process> LocalTransport::start(const NodeCommand& command,
                                               output::NodeOutput& output) {
    SpawnRequest request;
    request.argv = command.argv;
    request.working_directory = command.working_directory;
    // A local job gets the launcher's whole environment (as the plan read it, with
    // PYTHONUNBUFFERED=1 unless set), as if torchrun had been typed here:
    // the filtered `command.environment` exists to carry values to other machines, without
    // this machine's HOME, USER, DISPLAY... which are right here. What -x and --env-file set
    // goes on top; --env-exclude drops nothing: the launcher's values are this node's own. The
    // values of the launcher's flags (--network-interface) win over all of these.
    request.environment = with_flag_environment(
        local_environment(m_launcher_environment, command.environment_changes, false),
        command.flag_environment);
    // A node is ready only when its checks pass; a failed one starts nothing anywhere.
    if (std::optional<PreflightFailure> failure = local_preflight(command, request.environment)) {
        return ended_process(Outcome::cannot_run(describe(*failure), preflight_exit_status));
    }
    return std::make_unique<PendingLocalProcess>(std::move(request), output, m_kill_grace);
}

} // namespace colossalai::job
