#include "fake_libssh.hpp"

#include "libssh.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>

namespace colossalai::ssh::fake {

Packet out(std::string text) {
    return {Packet::Kind::data, 0, std::move(text), 0};
}
Packet err(std::string text) {
    return {Packet::Kind::data, 1, std::move(text), 0};
}
Packet eof() {
    return {Packet::Kind::eof, 0, "", 0};
}
Packet exit_status(int status) {
    return {Packet::Kind::exit_status, 0, "", status};
}
Packet exit_signal(std::string name) {
    return {Packet::Kind::exit_signal, 0, std::move(name), 0};
}
Packet close() {
    return {Packet::Kind::close, 0, "", 0};
}
Packet reply() {
    return {Packet::Kind::reply, 0, "", 0};
}
Packet reset(std::string error) {
    return {Packet::Kind::reset, 0, std::move(error), 0};
}

// The table as it was before the fake filled it.
struct Table {
#define COLOSSALAI_FAKE_FIELD(name) decltype(lib::name) name;
    COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_FAKE_FIELD)
#undef COLOSSALAI_FAKE_FIELD
};

struct FakeLibssh::State {
    std::mutex mutex;
    std::condition_variable changed; // a batch arrived, the launcher wrote
    Script script;
    int fds[2] = {-1, -1}; // the launcher's end, the node's end
    std::deque<std::vector<Packet>> wire;
    std::string buffers[2]; // stdout, stderr: taken in, not read yet
    bool remote_eof = false;
    bool remote_closed = false;
    bool connected = false;
    bool broken = false; // the connection was reset
    bool blocked = false;
    bool freed = false;
    std::string error = "";
    std::string host;
    std::string user;
    unsigned port = 22;
    long timeout = 0;
    ssh_channel_callbacks callbacks = nullptr;
    ssh_counter received = nullptr;
    std::string written;
    std::string command;
    int keepalives = 0;
    Table saved{};
    char session_handle = 0; // addresses for the opaque handles
    char channel_handle = 0;
    char key_handle = 0;
};

namespace {

FakeLibssh::State* current = nullptr;

FakeLibssh::State& state() {
    if (current == nullptr) {
        throw std::logic_error("fake libssh called while not installed");
    }
    return *current;
}

ssh_session session_of(FakeLibssh::State& s) {
    return reinterpret_cast<ssh_session>(&s.session_handle);
}
ssh_channel channel_of(FakeLibssh::State& s) {
    return reinterpret_cast<ssh_channel>(&s.channel_handle);
}

// A function's name as a template argument.
template <std::size_t N>
struct Name {
    constexpr Name(const char (&name)[N]) { std::copy_n(name, N, text); }
    char text[N];
};

// A libssh function the test did not expect: fails the test, returns the type's zero.
template <Name name, typename F>
struct Unexpected;
template <Name name, typename R, typename... A>
struct Unexpected<name, R (*)(A...)> {
    static R call(A...) {
        ADD_FAILURE() << "fake libssh: " << name.text << " is not scripted";
        return R();
    }
};

// Calls the channel callback `field` (when set) with `args` between the channel and userdata.
template <typename Field, typename... Args>
void notify(FakeLibssh::State& s, Field field, Args... args) {
    ssh_channel_callbacks cb = s.callbacks;
    if (cb != nullptr && cb->*field != nullptr) {
        (cb->*field)(session_of(s), channel_of(s), args..., cb->userdata);
    }
}

// Takes in the next batch from the wire, as libssh does whenever it is called: data into the
// stream buffers, then the channel callbacks. Called with the mutex held. False: none waited.
bool take_in(FakeLibssh::State& s) {
    if (s.broken || s.wire.empty()) {
        return false;
    }
    std::vector<Packet> batch = std::move(s.wire.front());
    s.wire.pop_front();
    char byte = 0;
    [[maybe_unused]] ssize_t got = ::recv(s.fds[0], &byte, 1, MSG_DONTWAIT);
    for (Packet& packet : batch) {
        if (s.received != nullptr) {
            ++s.received->in_packets;
        }
        switch (packet.kind) {
        case Packet::Kind::data:
            s.buffers[packet.is_err] += packet.text;
            notify(s, &ssh_channel_callbacks_struct::channel_data_function,
                   static_cast<void*>(packet.text.data()),
                   static_cast<uint32_t>(packet.text.size()), packet.is_err);
            break;
        case Packet::Kind::eof:
            s.remote_eof = true;
            notify(s, &ssh_channel_callbacks_struct::channel_eof_function);
            break;
        case Packet::Kind::exit_status:
            notify(s, &ssh_channel_callbacks_struct::channel_exit_status_function,
                   packet.exit_status);
            break;
        case Packet::Kind::exit_signal:
            notify(s, &ssh_channel_callbacks_struct::channel_exit_signal_function,
                   packet.text.c_str(), 0, "", "");
            break;
        case Packet::Kind::close:
            s.remote_closed = true;
            notify(s, &ssh_channel_callbacks_struct::channel_close_function);
            break;
        case Packet::Kind::reply:
            break;
        case Packet::Kind::reset:
            s.broken = true;
            s.connected = false;
            s.error = packet.text;
            return true;
        }
    }
    return true;
}

char* copy_of(const std::string& text) {
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

// ssh_channel_read_nonblocking, and ssh_channel_poll when `dest` is null: from the stream's
// buffer, taken in first when empty; SSH_EOF once it is empty after the node's EOF.
int read_stream(void* dest, uint32_t count, int is_stderr) {
    FakeLibssh::State& s = state();
    std::lock_guard lock(s.mutex);
    std::string& buffer = s.buffers[is_stderr != 0 ? 1 : 0];
    if (buffer.empty()) {
        take_in(s);
    }
    if (s.broken) {
        return SSH_ERROR;
    }
    if (buffer.empty()) {
        return s.remote_eof ? SSH_EOF : 0;
    }
    if (dest == nullptr) {
        return static_cast<int>(buffer.size());
    }
    std::size_t n = std::min<std::size_t>(count, buffer.size());
    std::memcpy(dest, buffer.data(), n);
    buffer.erase(0, n);
    return static_cast<int>(n);
}

int ssh_channel_write_fake(ssh_channel, const void* data, uint32_t len) {
    FakeLibssh::State& s = state();
    std::lock_guard lock(s.mutex);
    take_in(s); // libssh handles the packets that wait while it writes
    if (s.broken) {
        return SSH_ERROR;
    }
    if (s.remote_closed) {
        s.error = "Remote channel is closed";
        return SSH_ERROR;
    }
    if (s.blocked) {
        return 0;
    }
    s.written.append(static_cast<const char*>(data), len);
    s.changed.notify_all();
    return static_cast<int>(len);
}

void install(FakeLibssh::State& s) {
#define COLOSSALAI_FAKE_SAVE(name)                                                                 \
    s.saved.name = lib::name;                                                                      \
    lib::name = Unexpected<#name, decltype(lib::name)>::call;
    COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_FAKE_SAVE)
#undef COLOSSALAI_FAKE_SAVE

    // The session and connecting.
    lib::ssh_new = [] { return session_of(state()); };
    lib::ssh_free = [](ssh_session) {
        std::lock_guard lock(state().mutex);
        state().freed = true;
    };
    lib::ssh_disconnect = [](ssh_session) {
        std::lock_guard lock(state().mutex);
        state().connected = false;
    };
    lib::ssh_options_set = [](ssh_session, ssh_options_e type, const void* value) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        switch (type) {
        case SSH_OPTIONS_HOST:
            s.host = static_cast<const char*>(value);
            break;
        case SSH_OPTIONS_USER:
            s.user = value != nullptr ? static_cast<const char*>(value) : "tester";
            break;
        case SSH_OPTIONS_PORT:
            s.port = *static_cast<const unsigned*>(value);
            break;
        case SSH_OPTIONS_TIMEOUT:
            s.timeout = *static_cast<const long*>(value);
            break;
        default:
            break;
        }
        return SSH_OK;
    };
    lib::ssh_options_get = [](ssh_session, ssh_options_e type, char** value) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        const std::string* text = type == SSH_OPTIONS_HOST   ? &s.host
                                  : type == SSH_OPTIONS_USER ? &s.user
                                                             : nullptr;
        if (text == nullptr || text->empty()) {
            return SSH_ERROR;
        }
        *value = copy_of(*text);
        return SSH_OK;
    };
    lib::ssh_options_get_port = [](ssh_session, unsigned* port) {
        std::lock_guard lock(state().mutex);
        *port = state().port;
        return SSH_OK;
    };
    lib::ssh_options_parse_config = [](ssh_session, const char*) { return 0; };
    lib::ssh_string_free_char = [](char* text) { std::free(text); };
    lib::ssh_connect = [](ssh_session) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        if (s.script.connect_rc != SSH_OK) {
            s.error = s.script.connect_error;
            return s.script.connect_rc;
        }
        s.connected = true;
        return SSH_OK;
    };
    lib::ssh_get_error = [](void*) -> const char* {
        // The text stays put until the next failure, as libssh's does.
        return state().error.c_str();
    };
    lib::ssh_get_fd = [](ssh_session) { return state().fds[0]; };
    lib::ssh_is_connected = [](ssh_session) {
        std::lock_guard lock(state().mutex);
        return state().connected && !state().broken ? 1 : 0;
    };
    lib::ssh_get_server_publickey = [](ssh_session, ssh_key* key) {
        *key = reinterpret_cast<ssh_key>(&state().key_handle);
        return SSH_OK;
    };
    lib::ssh_key_free = [](ssh_key) {};
    lib::ssh_session_is_known_server = [](ssh_session) { return state().script.known; };
    lib::ssh_userauth_none = [](ssh_session, const char*) { return state().script.auth_none_rc; };
    lib::ssh_userauth_publickey_auto = [](ssh_session, const char*, const char*) {
        return state().script.auth_auto_rc;
    };
    lib::ssh_pki_import_cert_file = [](const char*, ssh_key*) { return SSH_ERROR; };
    lib::ssh_pki_import_privkey_file = [](const char*, const char*, ssh_auth_callback, void*,
                                          ssh_key*) { return SSH_ERROR; };

    // The channel.
    lib::ssh_channel_new = [](ssh_session) { return channel_of(state()); };
    lib::ssh_channel_free = [](ssh_channel) {};
    lib::ssh_channel_open_session = [](ssh_channel) { return SSH_OK; };
    lib::ssh_set_channel_callbacks = [](ssh_channel, ssh_channel_callbacks cb) {
        std::lock_guard lock(state().mutex);
        state().callbacks = cb;
        return SSH_OK;
    };
    lib::ssh_channel_request_exec = [](ssh_channel, const char* command) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        if (s.script.exec_rc != SSH_OK) {
            s.error = "exec refused";
            return s.script.exec_rc;
        }
        s.command = command;
        if (s.script.answer) {
            s.wire.push_back({out(*s.script.answer)});
            char byte = 'p';
            [[maybe_unused]] ssize_t sent = ::send(s.fds[1], &byte, 1, MSG_NOSIGNAL);
        }
        return SSH_OK;
    };
    lib::ssh_channel_write = ssh_channel_write_fake;
    lib::ssh_channel_poll = [](ssh_channel, int is_stderr) {
        return read_stream(nullptr, 0, is_stderr);
    };
    lib::ssh_channel_read_nonblocking = [](ssh_channel, void* dest, uint32_t count, int is_stderr) {
        return read_stream(dest, count, is_stderr);
    };
    // The blocking read (a remote capture's): 0 once the time is up or after the node's EOF, as
    // libssh's.
    lib::ssh_channel_read_timeout = [](ssh_channel, void* dest, uint32_t count, int is_stderr,
                                       int timeout_ms) {
        FakeLibssh::State& s = state();
        std::unique_lock lock(s.mutex);
        std::string& buffer = s.buffers[is_stderr != 0 ? 1 : 0];
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        while (buffer.empty() && !s.broken && !s.remote_eof) {
            if (!take_in(s) && s.changed.wait_until(lock, until) == std::cv_status::timeout) {
                break;
            }
        }
        if (s.broken) {
            return SSH_ERROR;
        }
        std::size_t n = std::min<std::size_t>(count, buffer.size());
        std::memcpy(dest, buffer.data(), n);
        buffer.erase(0, n);
        return static_cast<int>(n);
    };
    lib::ssh_channel_get_exit_status = [](ssh_channel) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        take_in(s);
        return -1; // as libssh's: the callbacks tell
    };
    lib::ssh_channel_is_closed = [](ssh_channel) {
        std::lock_guard lock(state().mutex);
        return state().remote_closed || state().broken ? 1 : 0;
    };
    // As libssh's: 0 while anything the node sent is unread, on either stream.
    lib::ssh_channel_is_eof = [](ssh_channel) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        return s.remote_eof && s.buffers[0].empty() && s.buffers[1].empty() ? 1 : 0;
    };
    lib::ssh_set_blocking = [](ssh_session, int) {};
    lib::ssh_get_status = [](ssh_session) { // the fake buffers no writes
        std::lock_guard lock(state().mutex);
        return state().broken ? SSH_CLOSED_ERROR : 0;
    };
    // As libssh's: with nothing buffered it returns at once, without polling the socket.
    lib::ssh_blocking_flush = [](ssh_session, int) {
        std::lock_guard lock(state().mutex);
        return state().broken ? SSH_ERROR : SSH_OK;
    };
    lib::ssh_set_counters = [](ssh_session, ssh_counter, ssh_counter received) {
        std::lock_guard lock(state().mutex);
        state().received = received;
    };
    // As libssh's (a global request that waits for its answer without blocking): it handles
    // the packets that wait.
    lib::ssh_send_keepalive = [](ssh_session) {
        FakeLibssh::State& s = state();
        std::lock_guard lock(s.mutex);
        take_in(s);
        ++s.keepalives;
        return SSH_OK;
    };
}

void restore(FakeLibssh::State& s) {
#define COLOSSALAI_FAKE_RESTORE(name) lib::name = s.saved.name;
    COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_FAKE_RESTORE)
#undef COLOSSALAI_FAKE_RESTORE
}

// A connected loopback TCP pair, for what only a TCP socket has (TCP_USER_TIMEOUT).
void tcp_pair(int fds[2]) {
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw std::runtime_error("fake libssh: cannot listen on 127.0.0.1");
    }
    fds[0] = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fds[0], reinterpret_cast<sockaddr*>(&address), length) != 0) {
        throw std::runtime_error("fake libssh: cannot connect to 127.0.0.1");
    }
    fds[1] = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
}

} // namespace

FakeLibssh::FakeLibssh(Script script) : m_state(new State) {
    if (current != nullptr) {
        throw std::logic_error("one fake libssh at a time");
    }
    m_state->script = std::move(script);
    if (m_state->script.tcp) {
        tcp_pair(m_state->fds);
    } else if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, m_state->fds) != 0) {
        throw std::runtime_error("fake libssh: socketpair failed");
    }
    current = m_state;
    install(*m_state);
}

FakeLibssh::~FakeLibssh() {
    restore(*m_state);
    current = nullptr;
    ::close(m_state->fds[0]);
    ::close(m_state->fds[1]);
    delete m_state;
}

void FakeLibssh::arrive(std::vector<Packet> batch) {
    std::lock_guard lock(m_state->mutex);
    m_state->wire.push_back(std::move(batch));
    char byte = 'p';
    [[maybe_unused]] ssize_t sent = ::send(m_state->fds[1], &byte, 1, MSG_NOSIGNAL);
    m_state->changed.notify_all();
}

bool FakeLibssh::await_wrapper_started(std::chrono::milliseconds limit) const {
    std::unique_lock lock(m_state->mutex);
    return m_state->changed.wait_for(lock, limit, [this] { return !m_state->written.empty(); });
}

void FakeLibssh::stall_bytes(std::size_t count) {
    std::string bytes(count, 's');
    [[maybe_unused]] ssize_t sent = ::send(m_state->fds[1], bytes.data(), count, MSG_NOSIGNAL);
}

void FakeLibssh::block_writes(bool blocked) {
    std::lock_guard lock(m_state->mutex);
    m_state->blocked = blocked;
}

namespace {
// A copy of one field of the state, read under its mutex.
template <typename T>
T read(FakeLibssh::State* s, T FakeLibssh::State::*field) {
    std::lock_guard lock(s->mutex);
    return s->*field;
}
} // namespace

std::string FakeLibssh::written() const {
    return read(m_state, &State::written);
}

std::string FakeLibssh::command() const {
    return read(m_state, &State::command);
}

int FakeLibssh::keepalives_sent() const {
    return read(m_state, &State::keepalives);
}

bool FakeLibssh::freed() const {
    return read(m_state, &State::freed);
}

long FakeLibssh::timeout_seconds() const {
    return read(m_state, &State::timeout);
}

int FakeLibssh::fd() const {
    return m_state->fds[0];
}

std::size_t FakeLibssh::batches_waiting() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->wire.size();
}

unsigned FakeLibssh::user_timeout_ms() const {
    unsigned value = 0;
    socklen_t length = sizeof value;
    if (::getsockopt(m_state->fds[0], IPPROTO_TCP, TCP_USER_TIMEOUT, &value, &length) != 0) {
        return 0;
    }
    return value;
}

} // namespace colossalai::ssh::fake
