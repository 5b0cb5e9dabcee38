#pragma once

// A scripted libssh filled into the ssh module's function table (src/ssh/libssh.hpp), so that
// the SSH state machine (connect, start, stream, heartbeat, keepalive, end) runs in unit tests
// without sshd, root or a network. One node: one session with one channel.
//
// What the node sends travels as batches of packets: arrive() queues a batch and writes one
// byte on the session's socket, so that poll() sees it readable. As real libssh does, the fake
// takes packets in whenever it is called (polling or reading a stream, writing, asking for the
// exit status, sending a keepalive) and the buffer it was asked about is empty; each take-in
// handles one batch (and reads its byte): the data goes into the stream's buffer and the channel
// callbacks run, on the calling thread. All state is behind one mutex: the connecting worker and
// the test's thread both call in.

#include <libssh/libssh.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::ssh::fake {

struct Packet {
    enum class Kind { data, eof, exit_status, exit_signal, close, reply, reset };
    Kind kind = Kind::data;
    int is_err = 0;      // data: 1 for stderr
    std::string text;    // data: the bytes; exit_signal: the signal's name; reset: the error
    int exit_status = 0; // exit_status
};

Packet out(std::string text);
Packet err(std::string text);
Packet eof();
Packet exit_status(int status);
Packet exit_signal(std::string name);
Packet close();
// Any packet that is no channel's business, e.g. the answer to a keepalive request.
Packet reply();
// The connection breaks: every later call fails with `error`.
Packet reset(std::string error);

// The node wrapper's first lines once its preflight checks passed: it started, it is ready
// (ssh/remote_command.hpp).
inline const std::string started_answer = "\036colossalai-started\n";
inline const std::string ready_answer = started_answer + "\036colossalai-ready\n";

// How the node answers while connecting and starting.
struct Script {
    int connect_rc = SSH_OK;
    std::string connect_error; // ssh_get_error after a failed connect
    int auth_none_rc = SSH_AUTH_SUCCESS;
    int auth_auto_rc = SSH_AUTH_SUCCESS;
    ssh_known_hosts_e known = SSH_KNOWN_HOSTS_OK;
    int exec_rc = SSH_OK;
    bool tcp = false; // the session's socket is a loopback TCP connection (else a socketpair)
    // What the wrapper prints on stdout as soon as it is started (its preflight answer), as one
    // batch; none: the test sends it with arrive().
    std::optional<std::string> answer = ready_answer;
};

// Fills libssh's function table on construction, restores it on destruction. One at a time.
// A libssh function the fake does not script fails the running test when called.
class FakeLibssh {
public:
    explicit FakeLibssh(Script script = {});
    ~FakeLibssh();
    FakeLibssh(const FakeLibssh&) = delete;
    FakeLibssh& operator=(const FakeLibssh&) = delete;

    // A batch of packets from the node, taken in by one libssh call.
    void arrive(std::vector<Packet> batch);
    // `count` bytes from the node on the socket that no libssh call will read (a packet not
    // complete yet).
    void stall_bytes(std::size_t count);
    // From now on ssh_channel_write takes nothing (SSH_OK, 0 bytes): the window is full.
    void block_writes(bool blocked);

    // Waits (on the clock of the world) until the command was started and its first input
    // written: the wrapper runs its checks. False after `limit`.
    bool await_wrapper_started(std::chrono::milliseconds limit = std::chrono::seconds(10)) const;

    // What the launcher wrote on the channel: the environment block, then control lines.
    std::string written() const;
    std::string command() const;         // the exec request's command; empty: none
    int keepalives_sent() const;         // ssh_send_keepalive calls
    bool freed() const;                  // the session was disconnected and freed
    long timeout_seconds() const;        // SSH_OPTIONS_TIMEOUT as set
    int fd() const;                      // the session's socket (the launcher's end)
    std::size_t batches_waiting() const; // batches not taken in yet
    unsigned user_timeout_ms() const;    // TCP_USER_TIMEOUT on the socket (tcp scripts)

    // The fake's state, behind its mutex (fake_libssh.cpp).
    struct State;

private:
    State* m_state;
};

} // namespace colossalai::ssh::fake
