// `--ssh-client openssh`: ssh's command line, built from the node's command and the settings as
// a value (never searched): BatchMode, the connect timeout, the host key policy, the launcher's
// keepalive unless the host's ssh config has its own, port, user, and the one login command.

#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

job::NodeCommand node_at(const std::string& address) {
    job::NodeCommand command;
    command.host = address;
    command.address = address;
    return command;
}

TEST(OpensshCommand, APlainHostGetsBatchModeTheTimeoutsAndTheLoginCommand) {
    SshSettings settings = ssh_settings(30s, 10s); // keepalive every 5 s, 12 of them
    EXPECT_EQ(openssh_command("ssh", node_at("node1"), settings, {}),
              (Words{"ssh", "-T", "-e", "none", "-o", "BatchMode=yes", "-o", "ConnectTimeout=30",
                     "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=12", "--", "node1",
                     std::string(login_command())}));
}

TEST(OpensshCommand, PortUserAndHostKeyPolicyComeFromTheCommandAndTheOptions) {
    SshSettings settings = ssh_settings(30s, 10s);
    settings.connect.host_key_policy = HostKeyPolicy::accept_new;
    job::NodeCommand command = node_at("::1");
    command.host = "alice@[::1]";
    command.user = "alice";
    command.ssh_port = 2222;
    EXPECT_EQ(openssh_command("/usr/bin/ssh", command, settings, {}),
              (Words{"/usr/bin/ssh",
                     "-T",
                     "-e",
                     "none",
                     "-o",
                     "BatchMode=yes",
                     "-o",
                     "ConnectTimeout=30",
                     "-o",
                     "StrictHostKeyChecking=accept-new",
                     "-o",
                     "ServerAliveInterval=5",
                     "-o",
                     "ServerAliveCountMax=12",
                     "-p",
                     "2222",
                     "-l",
                     "alice",
                     "--",
                     "::1",
                     std::string(login_command())}));
}

// ssh applies the config's own ServerAliveInterval (with its ServerAliveCountMax); 0 there is no
// keepalive at all, where the launcher keeps its own, as over libssh (KeepaliveWatch::for_host).
TEST(OpensshCommand, TheHostsOwnServerAliveIntervalIsLeftToSsh) {
    SshSettings settings = ssh_settings(30s, 10s);
    ClientConfig config;
    config.server_alive_interval = 7;
    Words own = openssh_command("ssh", node_at("n"), settings, config);
    EXPECT_EQ(own, (Words{"ssh", "-T", "-e", "none", "-o", "BatchMode=yes", "-o",
                          "ConnectTimeout=30", "--", "n", std::string(login_command())}));
    config.server_alive_interval = 0;
    Words none = openssh_command("ssh", node_at("n"), settings, config);
    EXPECT_EQ(none, openssh_command("ssh", node_at("n"), settings, {}));
}

// ssh takes whole seconds: a fraction is rounded up, and never to 0 (which would mean "none").
TEST(OpensshCommand, SecondsAreRoundedUpToAtLeastOne) {
    SshSettings settings = ssh_settings(100ms, 10s); // keepalive every 100 ms
    Words words = openssh_command("ssh", node_at("n"), settings, {});
    EXPECT_EQ(Words(words.begin() + 6, words.begin() + 10),
              (Words{"-o", "ConnectTimeout=1", "-o", "ServerAliveInterval=1"}));
    settings.connect.timeout = 2500ms;
    words = openssh_command("ssh", node_at("n"), settings, {});
    EXPECT_EQ(words.at(7), "ConnectTimeout=3");
}

} // namespace
} // namespace colossalai::ssh
