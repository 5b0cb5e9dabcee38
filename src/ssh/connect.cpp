#include "colossalai/ssh/connect.hpp"

#include "authenticate.hpp"
#include "host_key_check.hpp"
#include "libssh.hpp"
#include "session.hpp"

#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/error.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace colossalai::ssh {

namespace {

// Host and port as libssh will use them, after ~/.ssh/config (HostName, Port).
struct Target {
    std::string host;
    unsigned port = 22;
    std::string user;
};

Target target_of(ssh_session session) {
    Target target;
    char* value = nullptr;
    if (lib::ssh_options_get(session, SSH_OPTIONS_HOST, &value) == SSH_OK && value != nullptr) {
        target.host = value;
        lib::ssh_string_free_char(value);
    }
    value = nullptr;
    if (lib::ssh_options_get(session, SSH_OPTIONS_USER, &value) == SSH_OK && value != nullptr) {
        target.user = value;
        lib::ssh_string_free_char(value);
    }
    unsigned port = 0;
    if (lib::ssh_options_get_port(session, &port) == SSH_OK && port != 0) {
        target.port = port;
    }
    return target;
}

bool contains(const std::string& text, const char* part) {
    return text.find(part) != std::string::npos;
}

[[noreturn]] void connect_failed(ssh_session session, const Target& target,
                                 const ConnectSettings& settings) {
    std::string reason = last_error(session);
    if (contains(reason, "resolve hostname")) {
        throw fatal_error("cannot resolve host name '{}'", target.host);
    }
    if (contains(reason, "refused")) {
        throw fatal_error("connection refused ({} port {})", target.host, target.port);
    }
    if (contains(reason, "imeout") || contains(reason, "timed out")) {
        throw fatal_error("connection timed out after {} s ({} port {})",
                          settings.timeout.count() / 1000.0, target.host, target.port);
    }
    throw fatal_error("cannot connect ({} port {}): {}", target.host, target.port, reason);
}

// The launcher's warnings about a host (a key learned, a changed key accepted) go straight to
// stderr in one write, from the connecting worker: whole lines, never mixed with others.
void warn_on_stderr(const std::string& text) {
    std::string line = "colossalai: warning: " + text + "\n";
    [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
}

// Detects a peer that vanished without closing the connection (powered off, network cut).
void enable_keepalive(ssh_session session) {
    int fd = lib::ssh_get_fd(session);
    if (fd < 0) {
        return;
    }
    int on = 1, idle = 10, interval = 5, count = 3;
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

void on_exit_status(ssh_session, ssh_channel, int status, void* userdata) {
    auto* owned = static_cast<Session*>(userdata);
    owned->exit_status = status;
    owned->activity = true;
}

void on_exit_signal(ssh_session, ssh_channel, const char* signal, int, const char*, const char*,
                    void* userdata) {
    auto* owned = static_cast<Session*>(userdata);
    owned->exit_signal = signal != nullptr ? signal : "";
    owned->activity = true;
}

// Data stays in libssh's channel buffers (0 bytes taken), to be read as the output accepts it;
// the callback only notes that it came.
int on_data(ssh_session, ssh_channel, void*, uint32_t, int, void* userdata) {
    auto* owned = static_cast<Session*>(userdata);
    owned->activity = true;
    owned->marks->mark_once(Mark::first_output);
    return 0;
}

void on_eof(ssh_session, ssh_channel, void* userdata) {
    static_cast<Session*>(userdata)->activity = true;
}

void on_close(ssh_session, ssh_channel, void* userdata) {
    auto* owned = static_cast<Session*>(userdata);
    owned->remote_closed = true;
    owned->activity = true;
}

} // namespace

SessionPtr connect_session(const job::NodeCommand& node, const ConnectSettings& settings) {
    SessionPtr owned(new Session);
    ssh_session session = lib::ssh_new();
    if (session == nullptr) {
        throw fatal_error("cannot create an SSH session");
    }
    owned->session = session;

    const std::string& address = node.address.empty() ? node.host : node.address;
    check(lib::ssh_options_set(session, SSH_OPTIONS_HOST, address.c_str()), session,
          "bad host name");
    // ~/.ssh/config and /etc/ssh/ssh_config, for this host (aliases, HostName, User, Port...).
    if (lib::ssh_options_parse_config(session, nullptr) < 0) {
        throw fatal_error("cannot read the ssh configuration: {}", last_error(session));
    }
    // What the command line says wins over the configuration.
    if (node.user) {
        check(lib::ssh_options_set(session, SSH_OPTIONS_USER, node.user->c_str()), session,
              "bad user name");
    }
    if (node.ssh_port) {
        unsigned port = static_cast<unsigned>(*node.ssh_port);
        check(lib::ssh_options_set(session, SSH_OPTIONS_PORT, &port), session, "bad port");
    }
    // Neither the command line nor the configuration names the login: libssh would log in as
    // the local user, but only fills the option in later. Set it now, so that an
    // authentication error can name the login (`root@node1`).
    Target configured = target_of(session);
    if (configured.user.empty()) {
        check(lib::ssh_options_set(session, SSH_OPTIONS_USER, nullptr), session,
              "cannot find the local user name");
    }
    long seconds = static_cast<long>(settings.timeout.count() / 1000);
    long usec = static_cast<long>(settings.timeout.count() % 1000) * 1000;
    lib::ssh_options_set(session, SSH_OPTIONS_TIMEOUT, &seconds);
    lib::ssh_options_set(session, SSH_OPTIONS_TIMEOUT_USEC, &usec);
    Target target = target_of(session);
    owned->user = target.user;
    // What libssh leaves out of the ssh config (StrictHostKeyChecking accept-new,
    // HashKnownHosts, ServerAlive*, CertificateFile) is read by us, for the same host.
    owned->config = settings.read_config({address, target.host});
    // libssh itself would take an unknown host as known under `StrictHostKeyChecking no`;
    // verify_host_key() decides instead, from the true answer.
    int strict = 1;
    lib::ssh_options_set(session, SSH_OPTIONS_STRICTHOSTKEYCHECK, &strict);
    HostKeyCheck host_keys;
    host_keys.policy = settings.host_key_policy.value_or(
        owned->config.strict_host_key_checking.value_or(HostKeyPolicy::yes));
    host_keys.hash_known_hosts = owned->config.hash_known_hosts.value_or(false);
    host_keys.warn = warn_on_stderr;

    if (lib::ssh_connect(session) != SSH_OK) {
        connect_failed(session, target, settings);
    }
    owned->timing.mark(Mark::connected);
    verify_host_key(session, target.host, target.port, host_keys);
    owned->timing.mark(Mark::host_key);
    authenticate(session, target.host, target.user, owned->config);
    owned->timing.mark(Mark::authenticated);
    enable_keepalive(session);
    return owned;
}

void start_command(Session& owned, const std::string& input) {
    ssh_session session = owned.session;
    owned.channel = lib::ssh_channel_new(session);
    if (owned.channel == nullptr) {
        throw fatal_error("cannot open a channel: {}", last_error(session));
    }
    check(lib::ssh_channel_open_session(owned.channel), session, "cannot open a session channel");
    ssh_callbacks_init(&owned.callbacks);
    owned.callbacks.userdata = &owned;
    owned.callbacks.channel_exit_status_function = on_exit_status;
    owned.callbacks.channel_exit_signal_function = on_exit_signal;
    owned.callbacks.channel_data_function = on_data;
    owned.callbacks.channel_eof_function = on_eof;
    owned.callbacks.channel_close_function = on_close;
    lib::ssh_set_channel_callbacks(owned.channel, &owned.callbacks);
    check(lib::ssh_channel_request_exec(owned.channel, std::string(login_command()).c_str()),
          session, "cannot start the remote command");
    int written =
        lib::ssh_channel_write(owned.channel, input.data(), static_cast<uint32_t>(input.size()));
    // A login shell that runs no command (nologin) may have ended the channel already: its
    // reader names it from what it printed.
    if (written != static_cast<int>(input.size()) && !owned.remote_closed) {
        throw fatal_error("cannot send the program: {}", last_error(session));
    }
}

} // namespace colossalai::ssh
