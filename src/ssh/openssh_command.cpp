#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <algorithm>
#include <chrono>

namespace colossalai::ssh {

namespace {

// ssh takes whole seconds: rounded up, at least 1 (0 would mean "none").
std::string seconds(std::chrono::milliseconds duration) {
    auto whole = std::chrono::ceil<std::chrono::seconds>(duration).count();
    return std::to_string(std::max<long long>(whole, 1));
}

} // namespace

std::vector<std::string> openssh_command(const std::string& program, const job::NodeCommand& node,
                                         const SshSettings& settings, const ClientConfig& config) {
    // -T: no terminal (the wrapper's stdin carries its script and control lines); -e none: a
    // line of the script that starts with `~` must reach the node, not ssh's escape handling.
    std::vector<std::string> argv = {
        program, "-T",
        "-e",    "none",
        "-o",    "BatchMode=yes",
        "-o",    "ConnectTimeout=" + seconds(settings.connect.timeout)};
    if (settings.connect.host_key_policy) {
        argv.push_back("-o");
        argv.push_back("StrictHostKeyChecking=" +
                       std::string(host_key_policy_name(*settings.connect.host_key_policy)));
    }
    if (!config.server_alive_interval || *config.server_alive_interval == 0) {
        argv.push_back("-o");
        argv.push_back("ServerAliveInterval=" + seconds(settings.keepalive_interval));
        argv.push_back("-o");
        argv.push_back("ServerAliveCountMax=" + std::to_string(settings.keepalive_count));
    }
    if (node.ssh_port) {
        argv.push_back("-p");
        argv.push_back(std::to_string(*node.ssh_port));
    }
    if (node.user) {
        argv.push_back("-l");
        argv.push_back(*node.user);
    }
    argv.push_back("--");
    argv.push_back(node.address);
    argv.push_back(std::string(login_command()));
    return argv;
}

} // namespace colossalai::ssh
