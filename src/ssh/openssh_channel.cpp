#include "openssh_channel.hpp"

#include "node_channel.hpp"
#include "node_session.hpp"
#include "preflight_answer.hpp"

#include "colossalai/exec/wait.hpp"
#include "colossalai/ssh/client_config.hpp"
#include "colossalai/ssh/remote_command.hpp"
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

std::string killed_by(int status) {
    return "ssh was killed by " + util::signal_name(WTERMSIG(status));
}

// ssh's pipes (its own process group) and its wait status, through a pidfd where the kernel has
// them.
class OpenSshChannel final : public NodeChannel {
public:
    OpenSshChannel(exec::SpawnedJob ssh, std::string user, output::NodeOutput& output, Now now)
        : m_ssh(std::move(ssh)), m_user(std::move(user)), m_output(output), m_now(now) {
        m_pidfd = exec::open_pidfd(m_ssh.pid);
    }

    ~OpenSshChannel() override { end_ssh(); }

    bool started() const override { return true; }
    std::optional<Opened> open(HostTiming& /*timing*/) override { return Opened{}; }

    void collect_fds(WrapperPhase phase, bool writing, std::vector<pollfd>& fds) override {
        // Before the answer everything is read (into the answer and ssh's messages); while
        // running, what the node's output accepts.
        auto reading = [&](Stream stream) {
            return phase == WrapperPhase::checking ||
                   (phase == WrapperPhase::running && m_output.accepting(stream));
        };
        if (m_ssh.out_fd && reading(Stream::out)) {
            fds.push_back({m_ssh.out_fd.get(), POLLIN, 0});
        }
        if (m_ssh.err_fd && reading(Stream::err)) {
            fds.push_back({m_ssh.err_fd.get(), POLLIN, 0});
        }
        if (m_ssh.in_fd && writing) {
            fds.push_back({m_ssh.in_fd.get(), POLLOUT, 0});
        }
        if (!m_status && m_pidfd) {
            fds.push_back({m_pidfd.get(), POLLIN, 0});
        }
    }

    std::optional<job::Clock::time_point> deadline(WrapperPhase /*phase*/) const override {
        if (!m_pidfd && !m_status) {
            return m_now() + std::chrono::milliseconds(50); // no pidfd (old kernel): poll
        }
        return std::nullopt;
    }

    BeforeGo before_go(PreflightAnswer& answer, std::span<const pollfd> fds) override {
        BeforeGo step;
        if (util::polled(fds, m_ssh.out_fd)) {
            read_before_go(m_ssh.out_fd, Stream::out, answer, step);
        }
        if (util::polled(fds, m_ssh.err_fd) && !failed(step)) {
            read_before_go(m_ssh.err_fd, Stream::err, answer, step);
        }
        if (failed(step)) {
            return step;
        }
        if (!m_status) {
            reap(false);
        }
        if (m_status) {
            // ssh is gone: what it wrote is all in its pipes.
            read_before_go(m_ssh.out_fd, Stream::out, answer, step);
            read_before_go(m_ssh.err_fd, Stream::err, answer, step);
            if (!failed(step)) {
                step.failure = ended_before_go(answer, *m_status);
            }
        }
        return step;
    }

    // ssh's warnings before the answer (a host key learnt) stay the node's, and whatever
    // followed the answer on stdout is the job's.
    void begin_job(job::Clock::time_point /*now*/) override {
        if (!m_held_err.empty()) {
            m_output.write(Stream::err, std::exchange(m_held_err, {}));
        }
        if (!m_held_out.empty()) {
            m_output.write(Stream::out, std::exchange(m_held_out, {}));
        }
    }

    // Once ssh has ended and both streams are read to their end: the job's status.
    std::optional<ChannelEnd> pump(std::span<const pollfd> fds, HostTiming& timing) override {
        if (util::polled(fds, m_ssh.out_fd)) {
            read_job(m_ssh.out_fd, Stream::out, timing);
        }
        if (util::polled(fds, m_ssh.err_fd)) {
            read_job(m_ssh.err_fd, Stream::err, timing);
        }
        if (!m_status) {
            reap(false);
        }
        if (m_status && !m_ssh.out_fd && !m_ssh.err_fd) {
            return job_end(*m_status);
        }
        return std::nullopt;
    }

    bool writable() const override { return static_cast<bool>(m_ssh.in_fd); }

    Written write(std::string_view bytes) override {
        for (;;) {
            ssize_t n = ::write(m_ssh.in_fd.get(), bytes.data(), bytes.size());
            if (n >= 0) {
                return Written{static_cast<std::size_t>(n), std::nullopt};
            }
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) { // EPIPE: ssh ended; its status tells
                m_ssh.in_fd.reset();
            }
            return Written{};
        }
    }

    std::string_view abandon_how() const override { return "ssh killed"; }

    // Over OpenSSH the pipes close after the node's end is known (ssh ended, both streams
    // read: the wrapper's exit line is the last of stdout).
    void close(bool running) override {
        end_ssh();
        if (running && m_ssh.out_fd) { // what was held back is the job's
            std::string rest;
            m_exit_line.end(rest);
            write_job_out(rest);
        }
        if (!running || m_ssh.out_fd) {
            m_output.close(Stream::out);
        }
        if (!running || m_ssh.err_fd) {
            m_output.close(Stream::err);
        }
        m_ssh.out_fd.reset();
        m_ssh.err_fd.reset();
    }

private:
    static bool failed(const BeforeGo& step) {
        return step.failure || (step.verdict && step.verdict->failure);
    }

    // Chunks of `fd` before go: into the answer (stdout) or ssh's messages (stderr); once the
    // answer was given, one more chunk is held for go at most.
    void read_before_go(util::Fd& fd, Stream stream, PreflightAnswer& answer, BeforeGo& step) {
        char buffer[16384];
        while (fd && !failed(step)) {
            std::string_view bytes = util::read_some(fd, buffer);
            if (bytes.empty()) {
                return;
            }
            take_before_go(stream, bytes, answer, step);
            if (!answer.awaiting()) {
                return; // the rest waits for go: nothing is read before the job starts
            }
        }
    }

    void take_before_go(Stream stream, std::string_view bytes, PreflightAnswer& answer,
                        BeforeGo& step) {
        if (!answer.awaiting() || (m_answered && stream == Stream::err)) {
            // The answer was given: the rest waits for go (the rendezvous check's stderr too).
            (stream == Stream::out ? m_held_out : m_held_err).append(bytes);
            return;
        }
        if (stream == Stream::err) {
            m_stderr.append(bytes.substr(0, kept_stderr - std::min(kept_stderr, m_stderr.size())));
            return;
        }
        PreflightAnswer::Step taken = answer.take(bytes);
        if (taken.rendezvous) {
            step.rendezvous = std::move(taken.rendezvous);
            m_held_out += bytes.substr(taken.consumed);
            return;
        }
        if (!taken.verdict) {
            return;
        }
        step.verdict = taken.verdict;
        if (taken.verdict->failure) {
            return;
        }
        m_answered = true;
        m_held_err = std::move(m_stderr);
        m_held_out = std::string(bytes.substr(taken.consumed));
    }

    // ssh ended before go: what ssh or the node said.
    Outcome ended_before_go(const PreflightAnswer& answer, int status) const {
        if (m_answered) { // ready, then gone before go(): nothing started
            std::string reason = last_line(m_held_err);
            return PreflightAnswer::lost(!reason.empty()       ? reason
                                         : WIFSIGNALED(status) ? killed_by(status)
                                                               : "ssh ended");
        }
        if (WIFSIGNALED(status)) {
            return Outcome::connect_failed(killed_by(status));
        }
        int code = WEXITSTATUS(status);
        if (code == 255 && !answer.started()) {
            // Named as ssh's, once: some of its lines say so themselves.
            std::string reason = last_line(m_stderr);
            if (reason.empty()) {
                reason = "failed (exit status 255)";
            }
            return Outcome::connect_failed(reason.starts_with("ssh: ") ? reason : "ssh: " + reason);
        }
        return answer.ended(m_user, m_stderr, code);
    }

    void read_job(util::Fd& fd, Stream stream, HostTiming& timing) {
        char buffer[16384];
        while (fd && m_output.accepting(stream)) {
            std::string_view bytes = util::read_some(fd, buffer);
            if (bytes.empty()) {
                if (!fd) { // EOF or a read error
                    end_stream(stream, timing);
                }
                return;
            }
            timing.mark_once(Mark::first_output);
            if (stream == Stream::out) {
                write_job_out(m_exit_line.feed(bytes));
                continue;
            }
            m_output.write(stream, bytes);
            // ssh's own last words (a lost connection) come last on its stderr.
            m_err_tail.append(bytes);
            if (m_err_tail.size() > kept_stderr) {
                m_err_tail.erase(0, m_err_tail.size() - kept_stderr);
            }
        }
    }

    void write_job_out(const std::string& bytes) {
        if (!bytes.empty()) {
            m_output.write(Stream::out, bytes);
        }
    }

    // A stream of the running job ended: stdout's end is where the wrapper's exit line is.
    void end_stream(Stream stream, HostTiming& timing) {
        timing.mark_once(Mark::first_output); // the end counts as output, as over libssh
        if (stream == Stream::out) {
            std::string rest;
            m_exit = m_exit_line.end(rest);
            write_job_out(rest);
        }
        m_output.close(stream);
        if (!m_ssh.out_fd && !m_ssh.err_fd) {
            timing.mark_once(Mark::output_ended);
        }
    }

    // The wrapper's exit line says how the job ended; without it the connection was lost before
    // the wrapper ended (ssh's own 255; its last line on stderr, ending in CR LF as all of its
    // messages do, says why).
    ChannelEnd job_end(int status) const {
        if (m_exit) {
            return WrapperReport{m_exit->status};
        }
        if (WIFSIGNALED(status)) {
            return Outcome::connection_lost(killed_by(status));
        }
        std::string said = m_err_tail.ends_with("\r\n") ? last_line(m_err_tail) : "";
        return Outcome::connection_lost(
            "connection lost: " +
            (!said.empty() ? said
                           : fmt::format("ssh ended (exit status {}) before the node's job did",
                                         WEXITSTATUS(status))));
    }

    void reap(bool block) {
        if (std::optional<int> status = exec::reap_child(m_ssh.pid, block)) {
            m_status = status;
            m_pidfd.reset();
        }
    }

    // Ends ssh now (SIGKILL) and reaps it; its stdin is closed.
    void end_ssh() {
        if (!m_status && m_ssh.pid > 0) {
            ::kill(m_ssh.pid, SIGKILL);
            reap(true);
        }
        m_ssh.in_fd.reset();
    }

    exec::SpawnedJob m_ssh;
    util::Fd m_pidfd;            // none on kernels before 5.3: waitpid() is polled then
    std::optional<int> m_status; // ssh's wait status, once it ended
    std::string m_user;          // who logs in, for a login shell's failure
    output::NodeOutput& m_output;
    Now m_now;
    bool m_answered = false; // the preflight passed: the rest is held for go
    std::string m_stderr;    // ssh's stderr before the answer (the first 4 KiB)
    std::string m_held_out;
    std::string m_held_err;
    ExitLineReader m_exit_line;        // the job's stdout, its exit line held back
    std::optional<WrapperExit> m_exit; // the exit line, once stdout ended with it
    std::string m_err_tail;            // the last 4 KiB of stderr while running
};

} // namespace

std::unique_ptr<job::Process> make_openssh_session(exec::SpawnedJob ssh,
                                                   const job::NodeCommand& command,
                                                   output::NodeOutput& output,
                                                   const SshSettings& settings, std::string input,
                                                   std::vector<HostTiming>& timings) {
    std::string user = command.user.value_or(local_user().name);
    Now now = settings.now;
    return make_node_session(
        std::make_unique<OpenSshChannel>(std::move(ssh), std::move(user), output, now), command,
        settings.connect.timeout * 2, settings, std::move(input), timings);
}

} // namespace colossalai::ssh
