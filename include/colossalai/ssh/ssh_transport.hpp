#pragma once

#include "colossalai/job/process.hpp"
#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/ssh/connect.hpp"
#include "colossalai/ssh/timing.hpp"
#include "colossalai/ssh/worker_pool.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string_view>

namespace colossalai::ssh {

// The time the running nodes' heartbeats and keepalives are measured in (job/process.hpp).
using job::Now;
using job::steady_now;

struct SshSettings {
    ConnectSettings connect;
    std::chrono::milliseconds kill_grace{10000}; // the remote wrapper's TERM -> KILL grace
    std::size_t max_connecting = 32;             // connections set up at the same time
    // Liveness of a running node's connection, both ways (a cut network sends no EOF and no
    // reset): the launcher writes an empty line on each channel every `heartbeat`; the node
    // wrapper stops its job after `silence_limit` without a line (0: never); the launcher's
    // TCP drops a connection whose data stays unacknowledged for `unacked_limit`
    // (TCP_USER_TIMEOUT; the heartbeats keep data in flight, so plain keepalive would not
    // fire).
    std::chrono::milliseconds heartbeat{5000};
    std::chrono::milliseconds silence_limit{60000};
    std::chrono::milliseconds unacked_limit{30000};
    // A node whose sshd answers nothing (not even the `keepalive@openssh.com` requests sent
    // every `keepalive_interval`) for `keepalive_count` intervals in a row is a lost
    // connection. ServerAliveInterval / ServerAliveCountMax in the ssh config replace both.
    std::chrono::milliseconds keepalive_interval{5000};
    int keepalive_count = 12;
    // The launch's rendezvous check, run by the node wrappers after the barrier (their
    // rendezvous_line; job::Process::check_rendezvous); nullopt: none.
    std::optional<job::RendezvousPlan> rendezvous;
    // Where the heartbeat and keepalive times come from: the steady clock; unit tests move a
    // clock of their own by hand.
    Now now = steady_now;
    // Where a node's notice goes (its wrapper's, before the answer: a known-broken PyTorch and
    // Python pair), as a whole `colossalai: HOST: ...` line; empty: nowhere.
    std::function<void(std::string_view)> notice;
};

// The settings for `--ssh-timeout` (connect timeout per host) and `--kill-grace`: unacked
// limit = the timeout, silence limit = twice the timeout, a heartbeat and a keepalive every
// sixth of it (at least 100 ms), a node silent for 12 keepalives (twice the timeout) lost.
SshSettings ssh_settings(std::chrono::milliseconds ssh_timeout,
                         std::chrono::milliseconds kill_grace);

// Runs nodes' jobs over libssh, all from the launcher's one thread once connected: sessions
// are opened on a small worker pool (a slow or failing host never delays the others), then
// handed to the launcher's poll() loop, which streams both outputs and relays signals through
// the node wrapper (see remote_command.hpp). One session per node, one thread at a time.
class SshTransport : public job::Transport {
public:
    explicit SshTransport(SshSettings settings);
    ~SshTransport() override;

    std::unique_ptr<job::Process> start(const job::NodeCommand& command,
                                        output::NodeOutput& output) override;

    // True while a connection is still being set up (e.g. one that was given up on).
    bool busy() const { return m_pool.busy(); }

    // Where the time went, per phase, over the hosts whose job ran (ssh/timing.hpp).
    std::string timing_report() const;

private:
    SshSettings m_settings;
    WorkerPool m_pool;
    TimingClock::time_point m_created = TimingClock::now();
    std::vector<HostTiming> m_timings;
};

} // namespace colossalai::ssh
