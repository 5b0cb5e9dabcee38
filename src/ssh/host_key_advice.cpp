#include "colossalai/ssh/host_key_advice.hpp"

#include "colossalai/util/quote.hpp"

#include <fmt/core.h>

namespace colossalai::ssh {

std::string known_hosts_name(const std::string& host, unsigned port) {
    return port == 22 ? host : fmt::format("[{}]:{}", host, port);
}

std::string keyscan_command(const std::string& host, unsigned port) {
    std::string options = port == 22 ? "" : fmt::format("-p {} ", port);
    return fmt::format("ssh-keyscan {}{} >> ~/.ssh/known_hosts", options, util::shell_quote(host));
}

std::string forget_key_command(const std::string& host, unsigned port) {
    return "ssh-keygen -R " + util::shell_quote(known_hosts_name(host, port));
}

} // namespace colossalai::ssh
