#pragma once

#include "colossalai/job/process.hpp"
#include "colossalai/ssh/client_config.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/ssh/timing.hpp"

#include <memory>
#include <string>
#include <vector>

// `--ssh-client openssh`: the nodes reached through the system's `ssh` program instead of libssh,
// for what libssh cannot do (host certificates, GSSAPI, ControlMaster, any option of the user's
// ssh config). The node sees the same thing: the exec request is login_command(), the node
// wrapper and its environment block come on stdin (wrapper_input), then `go`, heartbeats and
// control lines (remote_command.hpp). ssh itself reads ~/.ssh/config, known_hosts, the agent and
// the identities; BatchMode keeps it from asking anyone anything.
namespace colossalai::ssh {

// ssh's command line for `node`: `PROGRAM -T -e none -o BatchMode=yes -o ConnectTimeout=S
// [-o StrictHostKeyChecking=P] [-o ServerAliveInterval=I -o ServerAliveCountMax=C] [-p PORT]
// [-l USER] -- ADDRESS LOGIN_COMMAND`. Seconds are rounded up (at least 1). The keepalive
// options are the launcher's (settings.keepalive_*) unless the host's ssh config (`config`)
// sets ServerAliveInterval, which ssh then applies itself. Pure.
std::vector<std::string> openssh_command(const std::string& program, const job::NodeCommand& node,
                                         const SshSettings& settings, const ClientConfig& config);

// The program `--ssh-client openssh` runs: `ssh`, found in the launcher's PATH.
inline constexpr std::string_view openssh_program = "ssh";

// Runs each remote node's job as a child process `ssh` of the launcher (its own process group,
// stdin, stdout and stderr pipes), through the node session that libssh's transport uses too
// (src/ssh/node_session.hpp, over ssh's pipes). Start: ssh connects while the launcher's loop
// reads the wrapper's preflight answer from ssh's stdout (due twice the connect timeout after ssh
// started), with ssh's own messages (host key, login) from its stderr; go: the `go` line on ssh's
// stdin. Stop and kill: the control line for the signal (`TERM`, `KILL`) on stdin, which the
// wrapper sends to the job's process group; before go, ssh is ended and the node is
// `not_started`. Lost: ssh is killed (the wrapper reads EOF and stops the job). A heartbeat line
// goes every settings.heartbeat, as over libssh. The job's status is the wrapper's exit line
// (ExitLine::printed: the job's, 128+N for a relayed signal N, or its silence limit), taken off
// the end of its stdout; a running job's ssh that ends without it lost its connection (ssh's last
// line on stderr is the reason). 255 before the wrapper started is ssh's own failure, whose last
// line on stderr is the reason. SIGPIPE must be ignored (the launcher's exec::SignalChannel
// does): ssh may end while its stdin is written.
class OpenSshTransport : public job::Transport {
public:
    // `environment`: ssh's (the launcher's: HOME, SSH_AUTH_SOCK, PATH); `program`: the ssh
    // client to run (unit tests give a fake).
    OpenSshTransport(SshSettings settings, std::vector<std::string> environment,
                     std::string program = std::string(openssh_program));

    std::unique_ptr<job::Process> start(const job::NodeCommand& command,
                                        output::NodeOutput& output) override;

    // Where the time went, per phase, over the hosts whose job ran (ssh/timing.hpp). ssh
    // connects, checks the host key and logs in unseen: all of it is `connect + key exchange`
    // here, the host key check and the authentication 0 ms, and no host waits for a worker.
    std::string timing_report() const;

private:
    TimingClock::time_point m_created = TimingClock::now();
    std::vector<HostTiming> m_timings;
    SshSettings m_settings;
    std::vector<std::string> m_environment;
    std::string m_program;
};

} // namespace colossalai::ssh
