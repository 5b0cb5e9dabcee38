#include "colossalai/job/local_transport.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/job/local_environment.hpp"
#include "colossalai/job/local_preflight.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/read_some.hpp"

#include <fmt/core.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <functional>
#include <variant>

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

// A node's part of the rendezvous check on this machine (LocalTransport's `rendezvous`): the
// probe as a child of the launcher, its output read in the loop. The listener's part is done at
// its "listening" line, and it runs on until end(); a connection's at the probe's end, as over
// SSH (its every line read). The first failed result is the part's; a warning is passed to
// `warn`.
class LocalProbe {
public:
    LocalProbe(RendezvousTurn turn, std::vector<std::string> argv, std::chrono::milliseconds wait,
               std::function<void(const RendezvousResult&)> warn)
        : m_turn(turn), m_argv(std::move(argv)), m_wait(wait), m_warn(std::move(warn)) {}
    ~LocalProbe() { end(); }
    LocalProbe(const LocalProbe&) = delete;
    LocalProbe& operator=(const LocalProbe&) = delete;

    RendezvousTurn turn() const { return m_turn; }

    // Starts it in `job`'s environment and directory; a failure at once when it cannot be.
    std::optional<Outcome> start(const SpawnRequest& job) {
        try {
            m_job = exec::spawn_job(
                SpawnRequest{m_argv, job.environment, job.working_directory, false});
        } catch (const Error& e) {
            return Outcome::cannot_run(fmt::format("rendezvous check: {}", e.what()),
                                       preflight_exit_status);
        }
        m_deadline = Clock::now() + m_wait;
        m_awaiting = true;
        return std::nullopt;
    }

    // Until its part answered.
    bool awaiting() const { return m_awaiting; }

    void collect_fds(std::vector<pollfd>& fds) const {
        for (const util::Fd* fd : {&m_job.out_fd, &m_job.err_fd}) {
            if (*fd) {
                fds.push_back({fd->get(), POLLIN, 0});
            }
        }
    }

    // Reads what it printed (its stderr is dropped: a result is a line on stdout); the node's
    // result when its part failed, or gave none.
    std::optional<Outcome> process_events(std::span<const pollfd> fds) {
        char buffer[4096];
        if (util::polled(fds, m_job.err_fd)) {
            while (!util::read_some(m_job.err_fd, buffer).empty()) {
            }
        }
        if (util::polled(fds, m_job.out_fd)) {
            for (std::string_view bytes;
                 !(bytes = util::read_some(m_job.out_fd, buffer)).empty();) {
                m_line.append(bytes);
            }
            take_lines();
        }
        if (!m_awaiting) {
            return std::nullopt;
        }
        if (m_failure) {
            end();
            return Outcome::cannot_run(describe(*m_failure), preflight_exit_status);
        }
        if (!m_job.out_fd) { // it ended
            end();
            if (!m_passed) {
                return Outcome::cannot_run(describe_no_rendezvous_result(), preflight_exit_status);
            }
            m_awaiting = false;
        } else if (m_passed && m_turn == RendezvousTurn::listen) {
            m_awaiting = false; // it listens: the others may connect now
        } else if (Clock::now() >= m_deadline) {
            end();
            return Outcome::cannot_run(describe_rendezvous_timeout(m_wait), preflight_exit_status);
        }
        return std::nullopt;
    }

    std::optional<Clock::time_point> deadline() const {
        return m_awaiting ? std::optional(m_deadline) : std::nullopt;
    }

    // Kills it and reaps it: the port it listened on is free once this returns (SIGKILL ends it
    // at once, so the wait is the kernel's teardown, not the probe's).
    void end() {
        if (m_job.pid > 0) {
            ::kill(-m_job.pid, SIGKILL);
            exec::reap_child(m_job.pid, true);
            m_job = SpawnedJob{};
        }
    }

private:
    void take_lines() {
        for (std::size_t newline; (newline = m_line.find('\n')) != std::string::npos;) {
            std::optional<RendezvousResult> result =
                parse_rendezvous_line(std::string_view(m_line).substr(0, newline));
            m_line.erase(0, newline + 1);
            if (!result) {
                continue;
            }
            if (is_failure(*result)) {
                m_failure = m_failure ? m_failure : result;
            } else if (result->outcome == RendezvousOutcome::own_name_loopback) {
                m_warn(*result);
            } else {
                m_passed = true;
            }
        }
    }

    RendezvousTurn m_turn;
    std::vector<std::string> m_argv;
    std::chrono::milliseconds m_wait;
    std::function<void(const RendezvousResult&)> m_warn;
    SpawnedJob m_job;
    bool m_awaiting = false;
    Clock::time_point m_deadline{};
    std::string m_line; // what it printed since its last complete line
    bool m_passed = false;
    std::optional<RendezvousResult> m_failure;
};

// A local job is ready at once but starts only at go(), with the remote ones; with a part in the
// rendezvous check (`probe`), not while that part runs (LocalTransport).
class PendingLocalProcess : public Process {
public:
    PendingLocalProcess(SpawnRequest request, output::NodeOutput& output,
                        std::chrono::milliseconds grace, std::unique_ptr<LocalProbe> probe)
        : m_request(std::move(request)), m_output(output), m_grace(grace),
          m_probe(std::move(probe)) {}

    bool ready() const override { return !m_probe || !m_probe->awaiting() || m_result; }

    bool check_rendezvous(RendezvousTurn turn) override {
        if (m_result || !m_probe || m_probe->turn() != turn || m_checked) {
            return false;
        }
        m_checked = true;
        if (std::optional<Outcome> failure = m_probe->start(m_request)) {
            end_before_job(std::move(*failure));
        }
        return true;
    }

    void go() override {
        if (m_probe) {
            m_probe->end(); // the listener's port is the job's now
        }
        if (!m_result) { // stopped before: nothing starts
            m_job = start_local_job(m_request, m_output, m_grace);
        }
    }
    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_job) {
            m_job->collect_fds(fds);
        } else if (m_probe && !m_result) {
            m_probe->collect_fds(fds);
        }
    }
    void process_events(std::span<const pollfd> fds) override {
        if (m_job) {
            m_job->process_events(fds);
        } else if (m_probe && !m_result) {
            if (std::optional<Outcome> failure = m_probe->process_events(fds)) {
                end_before_job(std::move(*failure));
            }
        }
    }
    bool has_work() const override { return m_job && m_job->has_work(); }
    std::optional<Clock::time_point> deadline() const override {
        if (m_job) {
            return m_job->deadline();
        }
        return m_probe && !m_result ? m_probe->deadline() : std::nullopt;
    }
    void stop(int signo) override {
        if (m_job) {
            m_job->stop(signo);
        } else if (!m_result) {
            end_before_job(Outcome::not_started());
        }
    }
    void kill() override {
        if (m_job) {
            m_job->kill();
        } else if (!m_result) {
            end_before_job(Outcome::not_started());
        }
    }
    void abandon() override {
        if (m_job) {
            m_job->abandon();
        } else if (!m_result) {
            end_before_job(Outcome::not_started());
        }
    }
    std::optional<Outcome> result() const override { return m_job ? m_job->result() : m_result; }

private:
    // Nothing starts: the node's end is `result` (not started, or its failed rendezvous part).
    void end_before_job(Outcome result) {
        if (m_probe) {
            m_probe->end();
        }
        m_output.close(Stream::out);
        m_output.close(Stream::err);
        m_result = std::move(result);
    }

    SpawnRequest m_request;
    output::NodeOutput& m_output;
    std::chrono::milliseconds m_grace;
    std::unique_ptr<LocalProbe> m_probe; // its part in the rendezvous check, if it has one
    bool m_checked = false;              // its part was started
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
    std::unique_ptr<LocalProbe> probe;
    if (m_rendezvous) {
        // Its part as the SSH wrappers take theirs (ssh/remote_command.cpp): the listener is
        // killed at go() rather than told by a line, and lives twice the bound (the others
        // connect only once it listens); the wait for a result is the bound and a margin.
        auto rank = static_cast<std::size_t>(command.rank);
        RendezvousProbe part = probe_for(*m_rendezvous, rank, ProbeStart::told);
        bool listens = m_rendezvous->listener == rank;
        if (auto* listen = std::get_if<RendezvousListen>(&part.role)) {
            listen->stop_on_stdin = false;
            part.bound *= 2;
        }
        auto warn = [notice = m_notice, host = command.host](const RendezvousResult& result) {
            if (notice) {
                notice(fmt::format("colossalai: warning: {}: {}\n", host, describe(result)));
            }
        };
        probe = std::make_unique<LocalProbe>(
            listens ? RendezvousTurn::listen : RendezvousTurn::connect,
            rendezvous_command(m_rendezvous->python, part),
            m_rendezvous->bound + std::chrono::seconds(5), std::move(warn));
    }
    return std::make_unique<PendingLocalProcess>(std::move(request), output, m_kill_grace,
                                                 std::move(probe));
}

} // namespace colossalai::job
