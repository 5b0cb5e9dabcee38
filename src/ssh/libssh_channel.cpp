#include "libssh_channel.hpp"

#include "attempt.hpp"
#include "channel_streams.hpp"
#include "keepalive_watch.hpp"
#include "libssh.hpp"
#include "node_channel.hpp"
#include "node_session.hpp"
#include "preflight_answer.hpp"
#include "session.hpp"

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

// A libssh channel: the session's socket, libssh's buffers and its channel callbacks (which
// set the Session's exit status, signal, close and `activity`).
class LibsshChannel final : public NodeChannel {
public:
    LibsshChannel(std::shared_ptr<Attempt> attempt, output::NodeOutput& output,
                  const SshSettings& settings)
        : m_attempt(std::move(attempt)), m_streams(output), m_unacked_limit(settings.unacked_limit),
          m_keepalive_interval(settings.keepalive_interval),
          m_keepalive_count(settings.keepalive_count) {}

    ~LibsshChannel() override {
        if (m_attempt) {
            m_attempt->cancel(); // a worker still connecting drops its session
        }
    }

    bool started() const override { return false; }

    // The worker's connect result: a session logged in with the wrapper started, or an error.
    std::optional<Opened> open(HostTiming& timing) override {
        std::optional<Attempt::ConnectResult> connected = m_attempt->take();
        if (!connected) {
            return std::nullopt;
        }
        if (!connected->session) {
            return Opened{Outcome::connect_failed(connected->error)};
        }
        m_session = std::move(connected->session);
        m_attempt.reset(); // its eventfd: one descriptor per host is the socket alone
        lib::ssh_set_blocking(m_session->session, 0);
        timing = m_session->timing;
        m_session->marks = &timing; // the callbacks mark the node's one record from now on
        return Opened{};
    }

    void collect_fds(WrapperPhase phase, bool writing, std::vector<pollfd>& fds) override {
        switch (phase) {
        case WrapperPhase::connecting:
            fds.push_back({m_attempt->event_fd(), POLLIN, 0});
            return;
        case WrapperPhase::checking:
            fds.push_back({lib::ssh_get_fd(m_session->session), POLLIN, 0});
            return;
        case WrapperPhase::connected:
            return;
        case WrapperPhase::running:
            break;
        }
        short events = 0;
        if (m_streams.wants_input()) {
            events |= POLLIN;
        }
        if (write_pending() || writing) {
            events |= POLLOUT;
        }
        fds.push_back({lib::ssh_get_fd(m_session->session), events, 0});
    }

    bool has_work(WrapperPhase phase) const override {
        // Data libssh already holds for a stream that was not read (backpressure) while the
        // output now accepts it again: no fd will tell.
        // And what libssh took in outside process_events (a control line's write) or for a
        // stream the last pass had already read.
        if (!m_session) {
            return false;
        }
        return (phase == WrapperPhase::checking && m_session->activity) ||
               (phase == WrapperPhase::running &&
                (m_streams.held_and_accepted() || m_session->activity));
    }

    std::optional<job::Clock::time_point> deadline(WrapperPhase phase) const override {
        if (phase == WrapperPhase::running && m_keepalive && !m_remote_closed) {
            return m_keepalive->deadline();
        }
        return std::nullopt;
    }

    // The wrapper's preflight answer, read here rather than on the worker, so that the worker
    // connects the next host meanwhile: the checks of all hosts overlap the connections.
    // Byte by byte: nothing may be taken from the stream beyond the answer's line (the job's
    // output follows it and stays in libssh's buffers, stderr too, until the job runs).
    BeforeGo before_go(PreflightAnswer& answer, std::span<const pollfd> /*fds*/) override {
        BeforeGo step;
        if (!answer.awaiting()) {
            return step; // the rest waits in libssh for go
        }
        m_session->activity = false;
        while (!step.verdict && !step.rendezvous && !step.failure && !m_ending) {
            char byte = 0;
            int n = lib::ssh_channel_read_nonblocking(m_session->channel, &byte, 1, 0);
            if (n == SSH_ERROR) {
                step.failure = PreflightAnswer::lost(last_error(m_session->session));
            } else if (n == SSH_EOF || (n == 0 && lib::ssh_channel_is_eof(m_session->channel))) {
                m_ending.emplace();
            } else if (n == 0) {
                break;
            } else {
                PreflightAnswer::Step taken = answer.take(std::string_view(&byte, 1));
                step.verdict = std::move(taken.verdict);
                step.rendezvous = std::move(taken.rendezvous);
            }
        }
        if (step.verdict || step.rendezvous) {
            m_session->activity = false;
        } else if (!step.failure && m_ending) {
            step.failure = read_ending(answer);
        }
        return step;
    }

    job::Outcome overdue(const PreflightAnswer& answer, job::Outcome late) override {
        return m_ending ? answer.ended(m_session->user, *m_ending, m_session->exit_status)
                        : std::move(late);
    }

    void begin_job(job::Clock::time_point now) override {
        limit_unacknowledged_time();
        lib::ssh_set_counters(m_session->session, nullptr, &m_session->received);
        m_keepalive.emplace(KeepaliveWatch::for_host(m_session->config, m_keepalive_interval,
                                                     m_keepalive_count, now));
    }

    // The requests go out and the connection ends here; KeepaliveWatch judges the answers.
    // (libssh sends the next request only once the last one was answered.)
    std::optional<Outcome> watch(job::Clock::time_point now) override {
        // The socket is asked for unread bytes only once an interval has ended.
        if (m_remote_closed || now < m_keepalive->deadline()) {
            return std::nullopt;
        }
        KeepaliveWatch::Verdict verdict =
            m_keepalive->check(now, m_session->received.in_packets, unread_bytes_waiting());
        switch (verdict.action) {
        case KeepaliveWatch::Verdict::Action::wait:
            break;
        case KeepaliveWatch::Verdict::Action::send:
            lib::ssh_send_keepalive(m_session->session);
            break;
        case KeepaliveWatch::Verdict::Action::lose:
            return KeepaliveWatch::lost(verdict.silence);
        }
        return std::nullopt;
    }

    std::optional<ChannelEnd> pump(std::span<const pollfd> /*fds*/, HostTiming& timing) override {
        if (m_streams.pump(*m_session) == ChannelStreams::StreamState::lost) {
            return lost();
        }
        if (!m_streams.ended()) {
            return std::nullopt;
        }
        timing.mark_once(Mark::first_output); // the end counts as output
        timing.mark_once(Mark::output_ended);
        return check_end();
    }

    bool writable() const override { return !m_remote_closed; }

    Written write(std::string_view bytes) override {
        int n = lib::ssh_channel_write(m_session->channel, bytes.data(),
                                       static_cast<uint32_t>(bytes.size()));
        if (n == SSH_ERROR) {
            return write_failed();
        }
        return Written{n > 0 ? static_cast<std::size_t>(n) : 0, std::nullopt};
    }

    void push(std::chrono::milliseconds wait) override {
        if (m_session && write_pending()) {
            lib::ssh_blocking_flush(m_session->session, static_cast<int>(wait.count()));
        }
    }

    std::string_view abandon_how() const override { return "connection closed"; }

    // The connection closes once the session is freed (libssh's disconnect and the socket's
    // close).
    void close(bool /*running*/) override {
        if (m_attempt) {
            m_attempt->cancel();
        }
        m_streams.close_all();
        m_session.reset();
    }

private:
    // The node's stdout ended before its answer: what it wrote on stderr (all of it is in: the
    // end is the whole channel's) and its exit status, which may come later, say why (a login
    // shell that runs no command prints its reason). nullopt while the status may still come.
    std::optional<Outcome> read_ending(const PreflightAnswer& answer) {
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
            return answer.ended(s.user, *m_ending, s.exit_status);
        }
        return std::nullopt;
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
    Written write_failed() {
        if (m_session->remote_closed && lib::ssh_is_connected(m_session->session) != 0) {
            m_remote_closed = true; // its job ended: no control line or heartbeat is needed
            return Written{};
        }
        return Written{0, lost()};
    }

    std::optional<ChannelEnd> check_end() {
        Session& s = *m_session;
        // After EOF nothing else reads packets: this handles what arrived (exit-status,
        // exit-signal, close) without blocking, the session being non-blocking. Its result is
        // useless: -1 means both "no status yet" and SSH_ERROR; the callbacks tell.
        lib::ssh_channel_get_exit_status(s.channel);
        if (s.exit_signal || s.exit_status) {
            return status_end();
        }
        if (lib::ssh_channel_is_closed(s.channel) || !lib::ssh_is_connected(s.session)) {
            return Outcome::connection_lost("connection closed without an exit status");
        }
        return std::nullopt;
    }

    // The job's end from the channel's exit-status or exit-signal request.
    ChannelEnd status_end() const {
        const Session& s = *m_session;
        if (s.exit_signal == silence_signal) {
            return WrapperReport{std::nullopt};
        }
        if (s.exit_signal) {
            return Outcome::killed(util::signal_number(*s.exit_signal).value_or(SIGKILL));
        }
        return WrapperReport{*s.exit_status};
    }

    // A channel call failed. libssh also fails reads once the remote closed the channel, which
    // sshd does right after sending the exit status: that is the end, not a lost connection.
    ChannelEnd lost() const {
        const Session& s = *m_session;
        if (s.exit_signal || s.exit_status) {
            return status_end();
        }
        return Outcome::connection_lost("connection lost: " + last_error(s.session));
    }

    std::shared_ptr<Attempt> m_attempt;
    SessionPtr m_session;
    ChannelStreams m_streams;
    // The node's stdout ended before its answer: what it wrote on stderr.
    std::optional<std::string> m_ending;
    std::chrono::milliseconds m_unacked_limit;
    // The launcher's keepalive; the host's ssh config may replace both (KeepaliveWatch::for_host).
    std::chrono::milliseconds m_keepalive_interval;
    int m_keepalive_count;
    std::optional<KeepaliveWatch> m_keepalive; // from the running phase on
    bool m_remote_closed = false; // the node closed the channel: nothing more can be written
};

} // namespace

std::unique_ptr<job::Process> make_libssh_session(std::shared_ptr<Attempt> attempt,
                                                  const job::NodeCommand& command,
                                                  output::NodeOutput& output,
                                                  const SshSettings& settings,
                                                  std::vector<HostTiming>& timings) {
    return make_node_session(std::make_unique<LibsshChannel>(std::move(attempt), output, settings),
                             command, settings.connect.timeout, settings, std::string(), timings);
}

} // namespace colossalai::ssh
