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
#include <libssh/server.h> // ssh_send_keepalive

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
    X(ssh_get_status)                                                                              \
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
    X(ssh_set_channel_callbacks)                                                                   \
    X(ssh_get_server_publickey)                                                                    \
    X(ssh_get_publickey_hash)                                                                      \
    X(ssh_get_fingerprint_hash)                                                                    \
    X(ssh_clean_pubkey_hash)                                                                       \
    X(ssh_key_free)                                                                                \
    X(ssh_key_type)                                                                                \
    X(ssh_key_type_to_char)                                                                        \
    X(ssh_pki_export_pubkey_base64)                                                                \
    X(ssh_session_get_known_hosts_entry)                                                           \
    X(ssh_knownhosts_entry_free)                                                                   \
    X(ssh_known_hosts_parse_line)                                                                  \
    X(ssh_set_counters)                                                                            \
    X(ssh_pki_import_privkey_file)                                                                 \
    X(ssh_pki_import_cert_file)                                                                    \
    X(ssh_pki_import_pubkey_base64)                                                                \
    X(ssh_pki_copy_cert_to_privkey)                                                                \
    X(ssh_key_cmp)                                                                                 \
    X(ssh_userauth_publickey)                                                                      \
    X(ssh_send_keepalive)

#define COLOSSALAI_LIBSSH_DECLARE(name) extern decltype(&::name) name;
COLOSSALAI_LIBSSH_FUNCTIONS(COLOSSALAI_LIBSSH_DECLARE)
#undef COLOSSALAI_LIBSSH_DECLARE

// Loads libssh (>= 0.10.3) and resolves every function; later calls do nothing. Call it before
// any other thread uses the module. Throws colossalai::Error when libssh is missing or too old.
void load();

} // namespace colossalai::ssh::lib
