#pragma once

#include <string>

// The commands that the host key errors of `run` advise, ready to paste into a shell. Pure.
namespace colossalai::ssh {

// The name under which known_hosts holds a host's key, as OpenSSH writes it: `host` on port 22,
// `[host]:port` on any other port.
std::string known_hosts_name(const std::string& host, unsigned port);

// Trusts an unknown host: `ssh-keyscan HOST >> ~/.ssh/known_hosts` (`-p PORT` unless 22).
std::string keyscan_command(const std::string& host, unsigned port);

// Forgets a host's old key: `ssh-keygen -R NAME` with the known_hosts name, shell-quoted (the
// brackets of `[host]:port` are glob characters).
std::string forget_key_command(const std::string& host, unsigned port);

} // namespace colossalai::ssh
