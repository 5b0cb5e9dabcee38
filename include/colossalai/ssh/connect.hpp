#pragma once

#include "colossalai/job/node_command.hpp"
#include "colossalai/ssh/client_config.hpp"
#include "colossalai/util/duration.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

// Opening a node's SSH session the way OpenSSH users expect. Only src/ssh sees libssh; the
// session travels between the connecting worker and the launcher's thread as an opaque handle.
namespace colossalai::ssh {

// What --ssh-timeout accepts: from 0.1 s (libssh's timer takes no less; 0 would mean its own
// default) up to an hour (the silence limits derived from it stay far from any overflow).
inline constexpr util::DurationRange connect_timeout_range{std::chrono::milliseconds(100),
                                                           std::chrono::hours(1)};
// --ssh-timeout's default.
inline constexpr std::chrono::milliseconds default_connect_timeout = std::chrono::seconds(30);

struct ConnectSettings {
    std::chrono::milliseconds timeout{30000}; // connect timeout, per host
    // StrictHostKeyChecking from the command line; unset: the ssh config's, else `yes`.
    std::optional<HostKeyPolicy> host_key_policy;
    // The part of the ssh config libssh skips, for one host: read from the user's and the
    // system's files. Unit tests with a fake libssh answer it themselves, so that the machine's
    // ~/.ssh/config never reaches them.
    std::function<ClientConfig(const ConfigTarget&)> read_config = read_client_config;
};

// A connected, authenticated session with the node's job started on one channel.
class Session;

struct SessionDeleter {
    void operator()(Session* session) const;
};
using SessionPtr = std::unique_ptr<Session, SessionDeleter>;

// Connects to the node (ssh config, --ssh-port, known_hosts, agent and identities), verifies its
// host key and logs in; nothing runs on the node yet. Blocking; runs on a worker thread.
// Throws colossalai::Error with one line saying what failed (the caller names the node): DNS,
// refused, timeout, unknown or changed host key (with how to fix it), authentication.
SessionPtr connect_session(const job::NodeCommand& node, const ConnectSettings& settings);

// Starts a program on a new channel of a connected session: the exec request is
// login_command() (remote_command.hpp), whatever the login shell, and `input` (program_input())
// is written on the channel at once. Blocking (a few round trips); throws colossalai::Error
// with one line.
void start_command(Session& session, const std::string& input);

} // namespace colossalai::ssh
