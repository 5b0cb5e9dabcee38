#include "colossalai/job/local_transport.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_preflight.hpp"
#include "colossalai/util/error.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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
    void signal(int) override {}
    void abandon() override {}
    std::optional<Outcome> result() const override { return m_result; }

private:
    Outcome m_result;
};

class LocalProcess : public Process {
public:
    LocalProcess(SpawnedJob job, output::NodeOutput& output, std::chrono::milliseconds grace)
        : m_job(job), m_output(output), m_grace(grace) {
        m_pidfd = exec::open_pidfd(m_job.pid);
        try {
            auto [guardian, watch_fd] = exec::spawn_guardian(m_job.pid, grace);
            m_guardian = guardian;
            m_watch_fd = watch_fd;
        } catch (...) {
            abandon(); // an unguarded job must not run
            throw;
        }
    }

    ~LocalProcess() override {
        abandon();
        if (m_guardian > 0) {
            ::waitpid(m_guardian, nullptr, WNOHANG);
        }
    }

    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_job.out_fd >= 0 && m_output.accepting(Stream::out)) {
            fds.push_back({m_job.out_fd, POLLIN, 0});
        }
        if (m_job.err_fd >= 0 && m_output.accepting(Stream::err)) {
            fds.push_back({m_job.err_fd, POLLIN, 0});
        }
        if (!m_exit && m_pidfd >= 0) {
            fds.push_back({m_pidfd, POLLIN, 0});
        }
    }

    void process_events(std::span<const pollfd> fds) override {
        for (const pollfd& entry : fds) {
            if (entry.revents == 0) {
                continue;
            }
            if (entry.fd == m_job.out_fd) {
                drain(m_job.out_fd, Stream::out);
            } else if (entry.fd == m_job.err_fd) {
                drain(m_job.err_fd, Stream::err);
            } else if (entry.fd == m_pidfd) {
                reap(false);
            }
        }
        if (!m_exit && m_pidfd < 0) {
            reap(false); // no pidfd (old kernel): poll the status
        }
        if (m_exit && m_streams_deadline && Clock::now() >= *m_streams_deadline) {
            // Something outside the job's group still holds its output open: stop waiting.
            close_stream(m_job.out_fd, Stream::out);
            close_stream(m_job.err_fd, Stream::err);
        }
    }

    std::optional<Clock::time_point> deadline() const override {
        if (!m_exit && m_pidfd < 0) {
            return Clock::now() + std::chrono::milliseconds(50);
        }
        return m_exit && (m_job.out_fd >= 0 || m_job.err_fd >= 0) ? m_streams_deadline
                                                                  : std::nullopt;
    }

    void signal(int signo) override {
        if (!m_exit) {
            ::kill(-m_job.pid, signo);
        }
    }

    void abandon() override {
        if (!m_exit) {
            ::kill(-m_job.pid, SIGKILL);
            reap(true);
        }
        close_stream(m_job.out_fd, Stream::out);
        close_stream(m_job.err_fd, Stream::err);
    }

    std::optional<Outcome> result() const override {
        if (m_exit && m_job.out_fd < 0 && m_job.err_fd < 0) {
            return m_exit;
        }
        return std::nullopt;
    }

private:
    void drain(int& fd, Stream stream) {
        char buffer[16384];
        while (fd >= 0 && m_output.accepting(stream)) {
            ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n > 0) {
                m_output.write(stream, std::string_view(buffer, static_cast<size_t>(n)));
                continue;
            }
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                return;
            }
            close_stream(fd, stream); // EOF or a read error
        }
    }

    void close_stream(int& fd, Stream stream) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
            m_output.close(stream);
        }
    }

    void reap(bool block) {
        int status = 0;
        pid_t done;
        do {
            done = ::waitpid(m_job.pid, &status, block ? 0 : WNOHANG);
        } while (done < 0 && errno == EINTR);
        if (done != m_job.pid) {
            return;
        }
        m_exit = WIFSIGNALED(status) ? Outcome::killed(WTERMSIG(status))
                                     : Outcome::exited(WEXITSTATUS(status));
        if (m_pidfd >= 0) {
            ::close(m_pidfd);
            m_pidfd = -1;
        }
        // The guardian now stops whatever the job left in its group.
        if (m_watch_fd >= 0) {
            ::close(m_watch_fd);
            m_watch_fd = -1;
        }
        m_streams_deadline = Clock::now() + m_grace + std::chrono::seconds(1);
    }

    SpawnedJob m_job;
    output::NodeOutput& m_output;
    std::chrono::milliseconds m_grace;
    int m_pidfd = -1;
    pid_t m_guardian = -1;
    int m_watch_fd = -1;
    std::optional<Outcome> m_exit;
    std::optional<Clock::time_point> m_streams_deadline;
};

// A local job is ready at once but starts only at go(), with the remote ones.
class PendingLocalProcess : public Process {
public:
    PendingLocalProcess(SpawnRequest request, output::NodeOutput& output,
                        std::chrono::milliseconds grace)
        : m_request(std::move(request)), m_output(output), m_grace(grace) {}

    void go() override { m_job = start_local_job(m_request, m_output, m_grace); }
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
    void signal(int signo) override {
        if (m_job) {
            m_job->signal(signo);
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

std::unique_ptr<Process> start_local_job(const SpawnRequest& request, output::NodeOutput& output,
                                         std::chrono::milliseconds kill_grace) {
    try {
        return std::make_unique<LocalProcess>(exec::spawn_job(request), output, kill_grace);
    } catch (const Error& e) {
        return std::make_unique<FailedProcess>(Outcome::cannot_run(e.what()));
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
        return std::make_unique<FailedProcess>(
            Outcome::cannot_run(describe(*failure), preflight_exit_status));
    }
    return std::make_unique<PendingLocalProcess>(std::move(request), output, m_kill_grace);
}

} // namespace colossalai::job
