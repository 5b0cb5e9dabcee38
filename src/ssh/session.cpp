#include "session.hpp"

#include "libssh.hpp"

#include "colossalai/util/error.hpp"

#include <string>

namespace colossalai::ssh {

std::string last_error(ssh_session session) {
    const char* text = lib::ssh_get_error(session);
    return text != nullptr && *text != '\0' ? text : "unknown libssh error";
}

void check(int rc, ssh_session session, const char* what) {
    if (rc != SSH_OK) {
        throw fatal_error("{}: {}", what, last_error(session));
    }
}

Session::~Session() {
    if (channel != nullptr) {
        lib::ssh_channel_free(channel);
    }
    if (session != nullptr) {
        lib::ssh_disconnect(session);
        lib::ssh_free(session);
    }
}

void KeyDeleter::operator()(ssh_key key) const {
    lib::ssh_key_free(key);
}

void SessionDeleter::operator()(Session* session) const {
    delete session;
}

} // namespace colossalai::ssh
