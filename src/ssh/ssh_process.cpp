#include "ssh_process.hpp"

#include "attempt.hpp"
#include "channel_streams.hpp"
#include "keepalive_watch.hpp"
#include "libssh.hpp"
#include "preflight_answer.hpp"
#include "session.hpp"
#include "wrapper_control.hpp"

#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/signal_name.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace colossalai::ssh {

namespace {

using job::Outcome;

class SshProcess : public job::Process {
public:
    SshProcess(std::shared_ptr<Attempt> attempt, const job::NodeCommand& command,
               output::NodeOutput& output, const SshSettings& settings,
               std::vector<HostTiming>& timings)
        : m_attempt(std::move(attempt)), m_command(command),
          m_answer_timeout(settings.connect.timeout), m_timings(timings), m_streams(output),
          m_unacked_limit(settings.unacked_limit),
          m_keepalive_interval(settings.keepalive_interval),
          m_keepalive_count(settings.keepalive_count), m_now(settings.now),
          m_control(settings.heartbeat, settings.silence_limit) {}

    ~SshProcess() override {
        if (m_attempt) {
            m_attempt->cancel(); // a worker still connecting drops its session
        }
    }

    bool ready() const override { return m_phase == Phase::connected || m_result; }

    // The wrapper passed its checks and waits for this line to start the job.
    void go() override {
        if (m_phase != Phase::connected || m_result) {
            return;
        }
        m_phase = Phase::running;
        m_session->timing.mark(Mark::go);
        limit_unacknowledged_time();
        m_control.go(m_now());
        start_keepalive();
        flush_outbox();
    }

    void collect_fds(std::vector<pollfd>& fds) override {
        if (m_result || m_phase == Phase::connected) {
            return;
        }
        if (m_phase == Phase::connecting) {
            fds.push_back({m_attempt->event_fd(), POLLIN, 0});
            return;
        }
        if (m_phase == Phase::checking) {
            fds.push_back({lib::ssh_get_fd(m_session->session), POLLIN, 0});
            return;
        }
        short events = 0;
        if (m_streams.wants_input()) {
            events |= POLLIN;
        }
        if (write_pending() || !m_control.outbox().empty()) {
            events |= POLLOUT;
        }
        fds.push_back({lib::ssh_get_fd(m_session->session), events, 0});
    }

    bool has_work() const override {
        // Data libssh already holds for a stream that was not read (backpressure) while the
        // output now accepts it again: no fd will tell.
        // And what libssh took in outside process_events (a control line's write) or for a
        // stream the last pass had already read.
        if (m_result || !m_session) {
            return false;
        }
        return (m_phase == Phase::checking && m_session->activity) ||
               (m_phase == Phase::running &&
                (m_streams.held_and_accepted() || m_session->activity));
    }

    std::optional<job::Clock::time_point> deadline() const override {
        if (m_phase == Phase::running && !m_result && !m_remote_closed) {
            return std::min(m_control.next_heartbeat(), m_keepalive->deadline());
        }
        if (m_phase == Phase::checking && !m_result) {
            return m_answer->deadline();
        }
        return std::nullopt;
    }

    void process_events(std::span<const pollfd> fds) override {
        if (m_result) {
            return;
        }
        if (m_phase == Phase::connecting) {
            for (const pollfd& entry : fds) {
                if (entry.revents != 0) {
                    take_session();
                }
            }
            return;
        }
        if (m_phase == Phase::checking) {
            read_answer();
            return;
        }
        if (m_phase != Phase::running) {
            return;
        }
        heartbeat();
        keepalive();
        if (m_result) {
            return;
        }
        flush_outbox();
        if (m_session && !m_result) {
            pump();
        }
    }

    // Stop and kill: a control line (`TERM`, `KILL`) that the node wrapper turns into the signal
    // to the job's process group; before go(), the wrapper reads EOF instead of `go`.
    void stop(int signo) override { deliver(signo); }
    void kill() override { deliver(SIGKILL); }

    void launcher_stopping() override {
        if (m_phase != Phase::running || m_result || m_remote_closed) {
            return;
        }
        m_control.pause();
        flush_outbox();
        // Out before the launcher stops: a line still in libssh's buffer would arrive only when
        // it resumes, after the wrapper's silence limit.
        if (m_session && !m_result && write_pending()) {
            lib::ssh_blocking_flush(m_session->session, 500);
        }
    }

    void abandon() override {
        if (m_result) {
            return;
        }
        if (m_attempt) {
            m_attempt->cancel();
        }
        // Closing the connection is the wrapper's cue: its watcher stops the job.
        finish(abandoned(m_phase == Phase::running, "connection closed"));
    }

    std::optional<Outcome> result() const override { return m_result; }

private:
    void deliver(int signo) {
        if (m_result) {
            return;
        }
        switch (m_phase) {
        case Phase::connecting: // nothing runs on the node yet, and nothing will
        case Phase::checking:   // the wrapper reads EOF instead of `go`: it starts nothing
        case Phase::connected:
            if (m_attempt) {
                m_attempt->cancel();
            }
            finish(Outcome::not_started());
            return;
        case Phase::running:
            if (m_control.relay(signo)) {
                flush_outbox();
            }
            return;
        }
    }

    // The worker's connect result: a session logged in with the wrapper started, or an error.
    void take_session() {
        std::optional<Attempt::ConnectResult> connected = m_attempt->take();
        if (!connected) {
            return;
        }
        if (!connected->session) {
            finish(Outcome::connect_failed(connected->error));
            return;
        }
        m_session = std::move(connected->session);
        m_attempt.reset(); // its eventfd: one descriptor per host is the socket alone
        lib::ssh_set_blocking(m_session->session, 0);
        m_phase = Phase::checking;
        m_answer.emplace(std::move(m_command), m_answer_timeout, m_now());
        read_answer(); // it may have come with the worker's last call
    }

    // The wrapper's preflight answer, read here rather than on the worker, so that the worker
    // connects the next host meanwhile: the checks of all hosts overlap the connections.
    // Byte by byte: nothing may be taken from the stream beyond the answer's line (the job's
    // output follows it).
    void read_answer() {
        m_session->activity = false;
        while (m_phase == Phase::checking && !m_result && !m_ending) {
            char byte = 0;
            int n = lib::ssh_channel_read_nonblocking(m_session->channel, &byte, 1, 0);
            if (n == SSH_ERROR) {
                finish(PreflightAnswer::lost(last_error(m_session->session)));
            } else if (n == SSH_EOF || (n == 0 && lib::ssh_channel_is_eof(m_session->channel))) {
                m_ending.emplace();
            } else if (n == 0) {
                break;
            } else if (std::optional<PreflightVerdict> verdict =
                           m_answer->take(std::string_view(&byte, 1)).verdict) {
                take_verdict(*verdict);
            }
        }
        if (m_phase == Phase::checking && !m_result && m_ending) {
            read_ending();
        }
        if (m_phase == Phase::checking && !m_result) {
            if (std::optional<Outcome> late = m_answer->expired(m_now())) {
                finish(m_ending
                           ? m_answer->ended(m_session->user, *m_ending, m_session->exit_status)
                           : std::move(*late));
            }
        }
    }

    // The node's stdout ended before its answer: what it wrote on stderr (all of it is in: the
    // end is the whole channel's) and its exit status, which may come later, say why (a login
    // shell that runs no command prints its reason).
    void read_ending() {
        Session& s = *m_session;
        constexpr size_t kept = 4096;
        char buffer[4096];
        int n = 0;
        while ((n = lib::ssh_channel_read_nonblocking(s.channel, buffer, sizeof buffer, 1)) > 0) {
            size_t room = kept - std::min(kept, m_ending->size());
            m_ending->append(buffer, std::min(room, static_cast<size_t>(n)));
        }
        lib::ssh_channel_get_exit_status(s.channel); // takes in what waits; the callbacks tell
        if (s.exit_status || s.exit_signal || s.remote_closed ||
            lib::ssh_is_connected(s.session) == 0) {
            finish(m_answer->ended(s.user, *m_ending, s.exit_status));
        }
    }

    void take_verdict(const PreflightVerdict& verdict) {
        if (verdict.failure) {
            finish(*verdict.failure);
            return;
        }
        m_session->timing.mark(Mark::channel);
        // The answer is no output of the job's.
        m_session->timing.marks[static_cast<std::size_t>(Mark::first_output)].reset();
        m_session->activity = false;
        m_phase = Phase::connected;
    }

    // An empty line now and then (written next): the node wrapper stops the job when they stop
    // coming.
    void heartbeat() {
        if (!m_remote_closed) {
            m_control.heartbeat(m_now());
        }
    }

    void start_keepalive() {
        lib::ssh_set_counters(m_session->session, nullptr, &m_session->received);
        m_keepalive.emplace(KeepaliveWatch::for_host(m_session->config, m_keepalive_interval,
                                                     m_keepalive_count, m_now()));
    }

    // The requests go out and the connection ends here; KeepaliveWatch judges the answers.
    // (libssh sends the next request only once the last one was answered.)
    void keepalive() {
        job::Clock::time_point now = m_now();
        // The socket is asked for unread bytes only once an interval has ended.
        if (m_remote_closed || now < m_keepalive->deadline()) {
            return;
        }
        KeepaliveWatch::Verdict verdict =
            m_keepalive->check(now, m_session->received.in_packets, unread_bytes_waiting());
        switch (verdict.action) {
        case KeepaliveWatch::Verdict::Action::wait:
            return;
        case KeepaliveWatch::Verdict::Action::send:
            lib::ssh_send_keepalive(m_session->session);
            return;
        case KeepaliveWatch::Verdict::Action::lose:
            finish(KeepaliveWatch::lost(verdict.silence));
            return;
        }
    }

    bool unread_bytes_waiting() const {
        int waiting = 0;
        int fd = lib::ssh_get_fd(m_session->session);
        return fd >= 0 && ::ioctl(fd, FIONREAD, &waiting) == 0 && waiting > 0;
    }

    // A peer cut off by the network neither answers nor resets: without this, TCP would keep
    // retransmitting the heartbeats for some 15 minutes before reporting the connection dead.
    void limit_unacknowledged_time() {
        int fd = lib::ssh_get_fd(m_session->session);
        auto ms = static_cast<unsigned>(m_unacked_limit.count());
        if (fd >= 0 && ms > 0) {
            ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
        }
    }

    void flush_outbox() {
        if (m_remote_closed) {
            m_control.drop(); // its job ended: a control line has nothing left to stop
        }
        while (!m_control.outbox().empty()) {
            std::string_view outbox = m_control.outbox();
            int n = lib::ssh_channel_write(m_session->channel, outbox.data(),
                                           static_cast<uint32_t>(outbox.size()));
            if (n == SSH_ERROR) {
                write_failed();
                if (m_result) {
                    return;
                }
                m_control.drop();
                break;
            }
            if (n <= 0) {
                break;
            }
            m_control.written(static_cast<size_t>(n));
        }
        if (write_pending()) {
            lib::ssh_blocking_flush(m_session->session, 0);
        }
    }

    // Bytes libssh holds for the socket. Not ssh_get_poll_flags(): libssh asks its own poll for
    // POLLOUT after every write, sent whole or not, and clears that only when it polls the socket
    // itself, which it does while reading. With the output paused nothing is read, so that flag
    // stayed set, the socket was always writable and the loop spun (issue #22: on two cores it
    // took the CPU the jobs needed, and a paused pager stalled them).
    bool write_pending() const {
        return (lib::ssh_get_status(m_session->session) & SSH_WRITE_PENDING) != 0;
    }

    // A write fails once the node closed the channel (its job ended; libssh refuses writes as
    // soon as the close arrives, while the output before it may still wait in its buffers).
    // That is the end of the job, to be read to its last byte, not a lost connection. Known by
    // the close callback: ssh_channel_is_eof() says 0 while output is unread, and taking that for
    // a lost connection ended the node with its exit status and dropped all of it (issue #22: a
    // launcher stopped while its jobs ended; on `fg` the keepalive took everything in at once
    // and the heartbeat's write was refused).
    void write_failed() {
        if (m_session->remote_closed && lib::ssh_is_connected(m_session->session) != 0) {
            m_remote_closed = true; // its job ended: no control line or heartbeat is needed
            return;
        }
        lost();
    }

    void pump() {
        if (m_streams.pump(*m_session) == ChannelStreams::StreamState::lost) {
            lost();
        } else if (m_streams.ended()) {
            m_session->timing.mark_once(Mark::first_output); // the end counts as output
            m_session->timing.mark_once(Mark::output_ended);
            check_end();
        }
    }

    void check_end() {
        Session& s = *m_session;
        // After EOF nothing else reads packets: this handles what arrived (exit-status,
        // exit-signal, close) without blocking, the session being non-blocking. Its result is
        // useless: -1 means both "no status yet" and SSH_ERROR; the callbacks tell.
        lib::ssh_channel_get_exit_status(s.channel);
        if (s.exit_signal || s.exit_status) {
            finish_with_status();
        } else if (lib::ssh_channel_is_closed(s.channel) || !lib::ssh_is_connected(s.session)) {
            finish(Outcome::connection_lost("connection closed without an exit status"));
        }
    }

    void finish_with_status() {
        Session& s = *m_session;
        if (s.exit_signal == silence_signal) {
            finish(m_control.job_end(std::nullopt));
        } else if (s.exit_signal) {
            finish(Outcome::killed(util::signal_number(*s.exit_signal).value_or(SIGKILL)));
        } else {
            finish(m_control.job_end(*s.exit_status));
        }
    }

    // A channel call failed. libssh also fails reads once the remote closed the channel, which
    // sshd does right after sending the exit status: that is the end, not a lost connection.
    void lost() {
        Session& s = *m_session;
        if (s.exit_signal || s.exit_status) {
            finish_with_status();
            return;
        }
        finish(Outcome::connection_lost("connection lost: " + last_error(s.session)));
    }

    // A host whose job ran leaves its timing: the end known now, the connection closed once
    // the session is freed (libssh's disconnect and the socket's close).
    void finish(Outcome info) {
        std::optional<HostTiming> timing;
        if (m_session && m_phase == Phase::running) {
            timing = m_session->timing;
            timing->mark(Mark::exit_status);
        }
        m_streams.close_all();
        m_result = std::move(info);
        m_session.reset();
        if (timing) {
            timing->mark(Mark::closed);
            m_timings.push_back(*timing);
        }
    }

    using Phase = WrapperPhase;

    std::shared_ptr<Attempt> m_attempt;
    job::NodeCommand m_command; // what the wrapper's failed checks name (moved to m_answer)
    std::chrono::milliseconds m_answer_timeout;
    std::optional<PreflightAnswer> m_answer; // from the checking phase on
    // The node's stdout ended before its answer: what it wrote on stderr.
    std::optional<std::string> m_ending;
    std::vector<HostTiming>& m_timings; // the transport's, one entry per host whose job ran
    Phase m_phase = Phase::connecting;
    ChannelStreams m_streams;
    std::chrono::milliseconds m_unacked_limit;
    // The launcher's keepalive; the host's ssh config may replace both (KeepaliveWatch::for_host).
    std::chrono::milliseconds m_keepalive_interval;
    int m_keepalive_count;
    Now m_now;
    std::optional<KeepaliveWatch> m_keepalive; // from the running phase on
    SessionPtr m_session;
    WrapperControl m_control;     // control lines not yet written, signals sent to the job
    bool m_remote_closed = false; // the node closed the channel: nothing more can be written
    std::optional<Outcome> m_result;
};

} // namespace

std::unique_ptr<job::Process> make_ssh_process(std::shared_ptr<Attempt> attempt,
                                               const job::NodeCommand& command,
                                               output::NodeOutput& output,
                                               const SshSettings& settings,
                                               std::vector<HostTiming>& timings) {
    return std::make_unique<SshProcess>(std::move(attempt), command, output, settings, timings);
}

} // namespace colossalai::ssh
