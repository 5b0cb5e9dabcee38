#include "colossalai/ssh/openssh_transport.hpp"

#include "preflight_answer.hpp"
#include "wrapper_control.hpp"

#include "colossalai/exec/spawn.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/read_some.hpp"
#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <optional>
#include <string_view>
#include <utility>

namespace colossalai::ssh {

namespace {

using job::Outcome;
using output::Stream;

// What is kept of ssh's stderr before the wrapper's answer (its own messages: host key, login).
constexpr std::size_t kept_stderr = 4096;

// The last line of `text` that is not empty, without its newline.
std::string last_line(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    std::size_t start = text.find_last_of('\n');
    return std::string(start == std::string_view::npos ? text : text.substr(start + 1));
}

class OpenSshProcess : public job::Process {
public:
    OpenSshProcess(exec::SpawnedJob ssh, const job::NodeCommand& command,
                   output::NodeOutput& output, const SshSettings& settings, std::string input,
                   std::vector<HostTiming>& timings)
        : m_timings(timings), m_ssh(std::move(ssh)),
          m_user(command.user.value_or(local_user().name)), m_output(output), m_now(settings.now),
          // ssh connects and logs in before the wrapper can answer: the answer is due after
          // the connect timeout and then the answer's own (the libssh path's two waits).
          m_answer(command, settings.connect.timeout * 2, settings.now()),
          m_control(settings.heartbeat, settings.silence_limit, std::move(input)) {
        m_pidfd = exec::open_pidfd(m_ssh.pid);
        // No worker pool: ssh starts at once.
        m_timing.mark(Mark::queued);
        m_timing.marks[static_cast<std::size_t>(Mark::picked)] = m_timing.marks.front();
        flush_outbox();
    }

    ~OpenSshProcess() override { end_ssh(); }

    bool ready() const override { return m_phase == Phase::connected || m_result; }

    void go() override {
        if (m_phase != Phase::connected || m_result) {
            return;
        }
        m_phase = Phase::running;
        m_timing.mark(Mark::go);
        m_control.go(m_now());
        flush_outbox();
        if (!m_held_err.empty()) {
            m_output.write(Stream::err, std::exchange(m_held_err, {}));
        }
        if (!m_held_out.empty()) {
            m_output.write(Stream::out, std::exchange(m_held_out, {}));
        }
    }

    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_result) {
            return;
        }
        // Before the answer everything is read (into the answer and ssh's messages); while
        // running, what the node's output accepts.
        auto reading = [this](Stream stream) {
            return m_phase == Phase::checking ||
                   (m_phase == Phase::running && m_output.accepting(stream));
        };
        if (m_ssh.out_fd && reading(Stream::out)) {
            fds.push_back({m_ssh.out_fd.get(), POLLIN, 0});
        }
        if (m_ssh.err_fd && reading(Stream::err)) {
            fds.push_back({m_ssh.err_fd.get(), POLLIN, 0});
        }
        if (m_ssh.in_fd && !m_control.outbox().empty()) {
            fds.push_back({m_ssh.in_fd.get(), POLLOUT, 0});
        }
        if (!m_status && m_pidfd) {
            fds.push_back({m_pidfd.get(), POLLIN, 0});
        }
    }

    std::optional<job::Clock::time_point> deadline() const override {
        if (m_result) {
            return std::nullopt;
        }
        if (m_phase == Phase::checking) {
            return m_answer.deadline();
        }
        if (m_phase == Phase::running && m_ssh.in_fd) {
            return m_control.next_heartbeat();
        }
        if (!m_pidfd && !m_status) {
            return m_now() + std::chrono::milliseconds(50); // no pidfd (old kernel): poll
        }
        return std::nullopt;
    }

    void process_events(std::span<const pollfd> fds) override {
        if (m_result) {
            return;
        }
        if (util::polled(fds, m_ssh.out_fd)) {
            drain(m_ssh.out_fd, Stream::out);
        }
        if (util::polled(fds, m_ssh.err_fd)) {
            drain(m_ssh.err_fd, Stream::err);
        }
        if (util::polled(fds, m_ssh.in_fd)) {
            flush_outbox();
        }
        if (!m_result && !m_status) {
            reap(false);
        }
        if (m_result) {
            return;
        }
        if (m_phase == Phase::running) {
            heartbeat();
        }
        check_end();
    }

    // Stop and kill: the control line for the signal, which the wrapper sends to the job's group;
    // before go(), ssh is ended (the wrapper reads EOF instead of `go`: it starts nothing).
    void stop(int signo) override { deliver(signo); }
    void kill() override { deliver(SIGKILL); }

    void launcher_stopping() override {
        if (m_phase == Phase::running && !m_result) {
            m_control.pause();
            flush_outbox();
        }
    }

    // Killing ssh closes the connection: the wrapper's watcher stops the job.
    void abandon() override {
        if (m_result) {
            return;
        }
        bool running = m_phase == Phase::running;
        end_ssh();
        finish(abandoned(running, "ssh killed"));
    }

    std::optional<Outcome> result() const override { return m_result; }

private:
    void deliver(int signo) {
        if (m_result) {
            return;
        }
        if (m_phase != Phase::running) {
            end_ssh();
            finish(Outcome::not_started());
            return;
        }
        if (m_control.relay(signo)) {
            flush_outbox();
        }
    }

    void drain(util::Fd& fd, Stream stream) {
        char buffer[16384];
        while (fd && !m_result && (m_phase != Phase::running || m_output.accepting(stream))) {
            std::string_view bytes = util::read_some(fd, buffer);
            if (bytes.empty()) {
                if (!fd && m_phase == Phase::running) { // EOF or a read error
                    end_stream(stream);
                }
                return;
            }
            take(stream, bytes);
            if (m_phase == Phase::connected) {
                return; // the rest waits for go(): nothing is read before the job starts
            }
        }
    }

    void take(Stream stream, std::string_view bytes) {
        if (m_phase == Phase::running) {
            mark_first_output();
            if (stream == Stream::out) {
                write_job_out(m_exit_line.feed(bytes));
                return;
            }
            m_output.write(stream, bytes);
            // ssh's own last words (a lost connection) come last on its stderr.
            m_err_tail.append(bytes);
            if (m_err_tail.size() > kept_stderr) {
                m_err_tail.erase(0, m_err_tail.size() - kept_stderr);
            }
            return;
        }
        if (m_phase == Phase::connected) { // the answer was given: the rest waits for go()
            (stream == Stream::out ? m_held_out : m_held_err).append(bytes);
            return;
        }
        if (stream == Stream::err) {
            m_stderr.append(bytes.substr(0, kept_stderr - std::min(kept_stderr, m_stderr.size())));
            return;
        }
        PreflightAnswer::Step step = m_answer.take(bytes);
        mark_logged_in();
        if (!step.verdict) {
            return;
        }
        if (step.verdict->failure) {
            end_ssh();
            finish(*step.verdict->failure);
            return;
        }
        m_phase = Phase::connected;
        m_timing.mark(Mark::channel);
        // ssh's warnings before the answer (a host key learnt) stay the node's, and whatever
        // followed the answer on stdout is the job's.
        m_held_err = std::move(m_stderr);
        m_held_out = std::string(bytes.substr(step.consumed));
    }

    void write_job_out(const std::string& bytes) {
        if (!bytes.empty()) {
            m_output.write(Stream::out, bytes);
        }
    }

    // ssh connects, checks the host key and logs in before the wrapper's first line: all of
    // that is `connected` here (the two marks after it are the same moment).
    void mark_logged_in() {
        if (m_answer.started() && !m_timing.marks[static_cast<std::size_t>(Mark::connected)]) {
            m_timing.mark(Mark::connected);
            m_timing.marks[static_cast<std::size_t>(Mark::host_key)] =
                m_timing.marks[static_cast<std::size_t>(Mark::authenticated)] =
                    m_timing.marks[static_cast<std::size_t>(Mark::connected)];
        }
    }

    void mark_first_output() { m_timing.mark_once(Mark::first_output); }

    // A stream of the running job ended: stdout's end is where the wrapper's exit line is.
    void end_stream(Stream stream) {
        mark_first_output(); // the end counts as output, as over libssh
        if (stream == Stream::out) {
            std::string rest;
            m_exit = m_exit_line.end(rest);
            write_job_out(rest);
        }
        m_output.close(stream);
        if (!m_ssh.out_fd && !m_ssh.err_fd) {
            m_timing.mark_once(Mark::output_ended);
        }
    }

    void heartbeat() {
        if (m_control.heartbeat(m_now())) {
            flush_outbox();
        }
    }

    void flush_outbox() {
        while (m_ssh.in_fd && !m_control.outbox().empty()) {
            std::string_view outbox = m_control.outbox();
            ssize_t n = ::write(m_ssh.in_fd.get(), outbox.data(), outbox.size());
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                return;
            }
            if (n < 0) { // EPIPE: ssh ended; its status tells the rest
                m_ssh.in_fd.reset();
                break;
            }
            m_control.written(static_cast<std::size_t>(n));
        }
        if (!m_ssh.in_fd) {
            m_control.drop();
        }
    }

    void reap(bool block) {
        if (std::optional<int> status = exec::reap_child(m_ssh.pid, block)) {
            m_status = status;
            m_pidfd.reset();
        }
    }

    // Ends ssh now (SIGKILL) and reaps it; its streams are not read any more.
    void end_ssh() {
        if (!m_status && m_ssh.pid > 0) {
            ::kill(m_ssh.pid, SIGKILL);
            reap(true);
        }
        m_ssh.in_fd.reset();
    }

    // Once ssh has ended: before the answer, what ssh or the node said; while running, once both
    // streams are read to their end, the job's status.
    void check_end() {
        if (!m_status || m_result) {
            return;
        }
        if (m_phase == Phase::running) {
            if (!m_ssh.out_fd && !m_ssh.err_fd) {
                finish(running_outcome(*m_status));
            }
            return;
        }
        // ssh is gone: what it wrote is all in its pipes.
        drain(m_ssh.out_fd, Stream::out);
        drain(m_ssh.err_fd, Stream::err);
        if (m_result) {
            return;
        }
        if (m_phase == Phase::connected) { // ready, then gone before go(): nothing started
            std::string reason = last_line(m_held_err);
            finish(PreflightAnswer::lost(!reason.empty() ? reason
                                         : WIFSIGNALED(*m_status)
                                             ? "ssh was killed by " +
                                                   util::signal_name(WTERMSIG(*m_status))
                                             : "ssh ended"));
            return;
        }
        if (WIFSIGNALED(*m_status)) {
            finish(Outcome::connect_failed("ssh was killed by " +
                                           util::signal_name(WTERMSIG(*m_status))));
            return;
        }
        int code = WEXITSTATUS(*m_status);
        if (code == 255 && !m_answer.started()) {
            // Named as ssh's, once: some of its lines say so themselves.
            std::string reason = last_line(m_stderr);
            if (reason.empty()) {
                reason = "failed (exit status 255)";
            }
            finish(
                Outcome::connect_failed(reason.starts_with("ssh: ") ? reason : "ssh: " + reason));
            return;
        }
        finish(m_answer.ended(m_user, m_stderr, code));
    }

    // The wrapper's exit line says how the job ended; without it the connection was lost before
    // the wrapper ended (ssh's own 255; its last line on stderr, ending in CR LF as all of its
    // messages do, says why).
    Outcome running_outcome(int status) const {
        if (!m_exit) {
            if (WIFSIGNALED(status)) {
                return Outcome::connection_lost("ssh was killed by " +
                                                util::signal_name(WTERMSIG(status)));
            }
            std::string said = m_err_tail.ends_with("\r\n") ? last_line(m_err_tail) : "";
            return Outcome::connection_lost(
                "connection lost: " +
                (!said.empty() ? said
                               : fmt::format("ssh ended (exit status {}) before the node's job did",
                                             WEXITSTATUS(status))));
        }
        return m_control.job_end(m_exit->status);
    }

    // Over OpenSSH the node's end is known when ssh has ended and both streams are read (the
    // wrapper's exit line is the last of stdout): that is the `exit_status` mark, and `closed`
    // follows once the pipes are closed.
    void finish(Outcome outcome) {
        if (m_phase == Phase::running) {
            m_timing.mark(Mark::exit_status);
        }
        if (m_phase == Phase::running && m_ssh.out_fd) { // what was held back is the job's
            std::string rest;
            m_exit_line.end(rest);
            write_job_out(rest);
        }
        if (m_phase != Phase::running || m_ssh.out_fd) {
            m_output.close(Stream::out);
        }
        if (m_phase != Phase::running || m_ssh.err_fd) {
            m_output.close(Stream::err);
        }
        m_ssh.out_fd.reset();
        m_ssh.err_fd.reset();
        m_ssh.in_fd.reset();
        if (m_phase == Phase::running) {
            m_timing.mark(Mark::closed);
            m_timings.push_back(m_timing);
        }
        m_result = std::move(outcome);
    }

    // No connecting phase: ssh connects while the wrapper's answer is awaited (checking).
    using Phase = WrapperPhase;

    std::vector<HostTiming>& m_timings; // the transport's, one entry per host whose job ran
    HostTiming m_timing;
    exec::SpawnedJob m_ssh;
    util::Fd m_pidfd;            // none on kernels before 5.3: waitpid() is polled then
    std::optional<int> m_status; // ssh's wait status, once it ended
    std::string m_user;          // who logs in, for a login shell's failure
    output::NodeOutput& m_output;
    Now m_now;
    PreflightAnswer m_answer;
    std::string m_stderr; // ssh's stderr before the answer (the first 4 KiB)
    std::string m_held_out;
    std::string m_held_err;
    Phase m_phase = Phase::checking;
    // stdin not yet written (the wrapper's input, `go`, control lines), signals sent to the job
    WrapperControl m_control;
    ExitLineReader m_exit_line;        // the job's stdout, its exit line held back
    std::optional<WrapperExit> m_exit; // the exit line, once stdout ended with it
    std::string m_err_tail;            // the last 4 KiB of stderr while running
    std::optional<Outcome> m_result;
};

} // namespace

OpenSshTransport::OpenSshTransport(SshSettings settings, std::vector<std::string> environment,
                                   std::string program)
    : m_settings(std::move(settings)), m_environment(std::move(environment)),
      m_program(std::move(program)) {}

std::unique_ptr<job::Process> OpenSshTransport::start(const job::NodeCommand& command,
                                                      output::NodeOutput& output) {
    ClientConfig config;
    try {
        ConfigTarget target{command.address, command.address};
        config = m_settings.connect.read_config(target);
        target.host = host_name_of(command.address, config);
        if (target.host != command.address) {
            config = m_settings.connect.read_config(target);
        }
    } catch (const Error&) {
        // A bad value in the ssh config: ssh itself reports it, with its file and line.
    }
    exec::SpawnRequest request;
    request.argv = openssh_command(m_program, command, m_settings, config);
    request.environment = m_environment;
    request.working_directory = command.working_directory;
    request.stdin_pipe = true;
    std::string input =
        wrapper_input(command, m_settings.kill_grace, m_settings.silence_limit, ExitLine::printed);
    try {
        return std::make_unique<OpenSshProcess>(exec::spawn_job(request), command, output,
                                                m_settings, std::move(input), m_timings);
    } catch (const Error& e) {
        output.close(Stream::out);
        output.close(Stream::err);
        return job::ended_process(Outcome::connect_failed(e.what()));
    }
}

std::string OpenSshTransport::timing_report() const {
    return render_timing(m_timings, m_created);
}

} // namespace colossalai::ssh
