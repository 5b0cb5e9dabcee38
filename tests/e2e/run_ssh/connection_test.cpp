// Connections that break while a job runs over SSH: a dropped connection (its sshd session
// killed) and a host cut off by the network are failures like any other: the launcher stops
// the other nodes, and the orphaned job on that host stops too — on EOF of its wrapper's stdin,
// or, when no EOF ever comes, when the launcher's heartbeats stop. A frozen sshd (SIGSTOP) is
// noticed by the SSH keepalive. A stopped sshd listener
// disturbs no running session.

#include "teardown.hpp"

#include <chrono>
#include <ostream>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshConnection : public SshTeardown {
protected:
    void SetUp() override {
        SshTeardown::SetUp();
        behave("all", "spawn; ready; hold\n");
    }

    // Expects the launcher's stderr when node2's connection was lost (the client's `reason`)
    // while node1 ran: fail-fast stopped node1 with SIGTERM. `said`: what the client printed
    // as node2's stderr before (the ssh program's own message).
    void expect_node2_lost(const std::string& reason, const std::string& said = {}) const {
        EXPECT_EQ(launcher_err(),
                  said + "colossalai: node2 failed (connection lost: " + reason +
                      "); stopping the other nodes\n" +
                      summary_block({"node1: failure (killed by SIGTERM, stopped "
                                     "by the launcher)",
                                     "node2: failure (connection lost: " + reason + ")"}));
    }
};

// Each --ssh-client, and how it says that the connection was lost.
struct Client {
    std::string name;
    std::string reason; // the summary's reason after `connection lost: `
    std::string said;   // on the launcher's stderr before, as the node's
};

// For GoogleTest's messages.
void PrintTo(const Client& client, std::ostream* out) {
    *out << client.name;
}

class SshConnectionLost : public SshConnection, public ::testing::WithParamInterface<Client> {};

TEST_P(SshConnectionLost, ADroppedConnectionStopsTheOthersAndItsOwnJob) {
    const Client& client = GetParam();
    auto launcher = start_launcher({"--ssh-client", client.name, "--kill-grace", "20"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    cluster().kill_sshd_sessions(2);
    EXPECT_EQ(exit_status(*launcher), 255);
    expect_node2_lost(client.reason, client.said);
    // The job on node2 outlived its connection; its wrapper read EOF and stopped it.
    expect_no_job_left(10s);
}

// ssh's exit status is 255 both for this and for a job that exited 255: the node wrapper's exit
// line tells them apart (OpenSshStop.AJobThatExits255IsExitCode255AsOverLibssh).
INSTANTIATE_TEST_SUITE_P(
    Clients, SshConnectionLost,
    ::testing::Values(Client{"libssh", "Socket error: disconnected", ""},
                      Client{"openssh", "Connection to node2 closed by remote host.",
                             "node2: Connection to node2 closed by remote host.\r\n"}),
    [](const ::testing::TestParamInfo<Client>& info) { return info.param.name; });

class SshConnectionCut : public SshConnection, public ::testing::WithParamInterface<Client> {};

TEST_P(SshConnectionCut, AHostCutOffByTheNetworkIsNoticedAndItsJobStops) {
    const Client& client = GetParam();
    Finally replug([] { cluster().set_link(2, true); });
    // --ssh-timeout 3: a heartbeat every 500 ms; libssh drops a connection whose data stays
    // unacknowledged for 3 s, ssh after 12 unanswered ServerAlive requests (one a second); a
    // wrapper that hears nothing for 6 s stops its job.
    auto launcher =
        start_launcher({"--ssh-client", client.name, "--kill-grace", "20", "--ssh-timeout", "3"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    cluster().set_link(2, false);
    EXPECT_EQ(exit_status(*launcher), 255);
    expect_node2_lost(client.reason, client.said);
    // No EOF ever reaches node2's wrapper (its sshd still waits on a silent peer): the missing
    // heartbeats stop the job, while the host is still cut off.
    expect_no_job_left(10s);
}

INSTANTIATE_TEST_SUITE_P(
    Clients, SshConnectionCut,
    ::testing::Values(Client{"libssh", "Socket error: Connection timed out",
                             ""}, // TCP_USER_TIMEOUT
                      Client{"openssh", "Timeout, server node2 not responding.",
                             "node2: Timeout, server node2 not responding.\r\n"}),
    [](const ::testing::TestParamInfo<Client>& info) { return info.param.name; });

TEST_F(SshConnection, AFrozenSshdIsNoticedByKeepaliveAndItsJobStops) {
    Finally thaw([] { cluster().signal_sshd_sessions(2, "CONT"); });
    // --ssh-timeout 3: a keepalive every 500 ms; 12 unanswered in a row (6 s) lose node2.
    auto launcher = start_launcher({"--kill-grace", "20", "--ssh-timeout", "3"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    // The node's kernel still acknowledges every heartbeat: only an SSH-level answer can
    // tell that its sshd is gone.
    cluster().signal_sshd_sessions(2, "STOP");
    EXPECT_EQ(exit_status(*launcher), 255);
    expect_node2_lost("no answer from its sshd for 6 s (keepalive)");
    // Its wrapper hears no heartbeat any more (its sshd is frozen) and stops the job.
    expect_no_job_left(10s);
}

TEST_F(SshConnection, ServerAliveIntervalAndCountMaxFromTheConfigReplaceTheKeepalive) {
    Finally thaw([] { cluster().signal_sshd_sessions(2, "CONT"); });
    auto home = cluster().make_home("server-alive");
    write_file(home / ".ssh/config",
               "ServerAliveInterval 1\nServerAliveCountMax 2\n" + read_file(home / ".ssh/config"));
    // The launcher's own keepalive would take 6 s here; the config's takes 2.
    auto launcher = start_launcher({"--kill-grace", "20", "--ssh-timeout", "3"}, home);
    ASSERT_TRUE(all_ready()) << launcher_err();
    cluster().signal_sshd_sessions(2, "STOP");
    EXPECT_EQ(exit_status(*launcher), 255);
    expect_node2_lost("no answer from its sshd for 2 s (keepalive)");
    expect_no_job_left(10s);
}

TEST_F(SshConnection, AStoppedSshdListenerLeavesRunningSessionsAlone) {
    Finally restart([] { cluster().start_sshd(2); });
    behave("all", "spawn; ready; await go; echo finished\n");
    auto launcher = start_launcher({"--kill-grace", "20"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    cluster().stop_sshd(2);
    ASSERT_EQ(cluster().sshd_pid(2), 0);
    release("go");
    EXPECT_EQ(exit_status(*launcher), 0);
    EXPECT_EQ(launcher_err(), summary_block({"node1: success", "node2: success"}));
    std::string out = launcher_out();
    EXPECT_TRUE(out == "node1: finished\nnode2: finished\n" ||
                out == "node2: finished\nnode1: finished\n")
        << out;
    // What `spawn` left in each job's group went with the job.
    expect_no_job_left(10s);
}

TEST_F(SshConnection, AStoppedSshdWithItsSessionsKilledIsALostConnection) {
    Finally restart([] { cluster().start_sshd(2); });
    auto launcher = start_launcher({"--kill-grace", "20"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    cluster().stop_sshd(2);
    cluster().kill_sshd_sessions(2);
    EXPECT_EQ(exit_status(*launcher), 255);
    expect_node2_lost("Socket error: disconnected");
    expect_no_job_left(10s);
}

} // namespace
} // namespace colossalai::test
