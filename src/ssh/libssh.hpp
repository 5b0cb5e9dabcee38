#pragma once

// Private to the ssh module: libssh, loaded when the first remote node needs it.
//
// Linking libssh would load it — with OpenSSL and Kerberos, and libssh's constructor that
// initialises them — in every run of the binary: about 9 ms before `main`, more than all of
// `colossalai --help`. So the binary does not link it: `load()` dlopen()s the libssh found at
// build time (its SONAME) and resolves the functions below into pointers of the same names and
// types, and the module calls `lib::ssh_new()` etc. Only headers come from the libssh package at
// build time.

#include <libssh/callbacks.h>
#include <libssh/libssh.h>

namespace colossalai::ssh::lib {

#define COLOSSALAI_LIBSSH_FUNCTIONS(X)                                                             \
    X(ssh_version)                                                                                 \
    X(ssh_new)                                                                                     \
    X(ssh_free)                                                                                    \
    X(ssh_options_set)                                                                             \
    X(ssh_options_get)                                                                             \
    X(ssh_options_get_port)                                                                        \
    X(ssh_options_parse_config)                                                                    \
    X(ssh_connect)                                                                                 \
    X(ssh_disconnect)                                                                              \
    X(ssh_get_error)                                                                               \
    X(ssh_get_fd)                                                                                  \
    X(ssh_get_poll_flags)                                                                          \
    X(ssh_set_blocking)                                                                            \
    X(ssh_blocking_flush)                                                                          \
    X(ssh_is_connected)                                                                            \
    X(ssh_session_is_known_server)                                                                 \
    X(ssh_userauth_none)                                                                           \
    X(ssh_userauth_publickey_auto)                                                                 \
    X(ssh_string_free_char)                                                                        \
    X(ssh_channel_new)                                                                             \
    X(ssh_channel_free)                                                                            \
    X(ssh_channel_open_session)                                                                    \
    X(ssh_channel_request_exec)                                                                    \
    X(ssh_channel_write)                                                                           \
    X(ssh_channel_poll)                                                                            \
    X(ssh_channel_read_nonblocking)                                                                \
    X(ssh_channel_read_timeout)                                                                    \
    X(ssh_channel_send_eof)                                                                        \
    X(ssh_channel_get_exit_status)                                                                 \
    X(ssh_channel_is_closed)                                                                       \
    X(ssh_channel_is_eof)                                                                          \
    X(ssh_set_channel_callbacks)

#define COLOSSALAI_LIBSSH_DECLARE(name) extern decltype(&::name) name;
COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_LIBSSH_DECLARE)
#undef COLOSSALAI_LIBSSH_DECLARE

// Loads libssh (>= 0.10.3) and resolves every function; later calls do nothing. Call it before
// any other thread uses the module. Throws colossalai::Error when libssh is missing or too old.
void load();

} // namespace colossalai::ssh::lib
