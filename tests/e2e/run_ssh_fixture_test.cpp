// Proves the SSH test hosts with OpenSSH's own client: every host is its own machine as far as
// an SSH user can tell, the client is none of them, identity and host keys are checked, and the
// controls the launcher tests need (stop sshd, drop connections, find processes) do what they say.

#include "run_ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

// OpenSSH's ssh, never prompting.
std::vector<std::string> ssh(const std::string& host, const std::string& command) {
    return {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, command};
}

bool contains(const std::vector<pid_t>& pids, pid_t pid) {
    return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

// `ssh nodeK 'exec -a MARKER sleep 60'` started from the client, and the sleeper it runs there.
class RemoteSleeper {
public:
    RemoteSleeper(const SshCluster& cluster, int k, const std::string& marker)
        : m_session(cluster.client_command(ssh(cluster.host(k), "exec -a " + marker + " sleep 60")),
                    cluster.client_options(), m_logs / "out", m_logs / "err") {
        eventually(
            [&] {
                m_remote = cluster.processes_with_marker_on_host(k, marker);
                return !m_remote.empty();
            },
            10s);
    }

    // PIDs of the sleeper on host k; empty when it did not show up within 10 s.
    const std::vector<pid_t>& remote() const { return m_remote; }
    Background& session() { return m_session; }
    std::string err() const { return read_file(m_logs / "err"); }

private:
    TempDir m_logs; // before m_session, which writes there
    Background m_session;
    std::vector<pid_t> m_remote;
};

class SshFixture : public SharedSshCluster<2, 3> {};

TEST_F(SshFixture, EachHostHasItsOwnNameAndAddress) {
    for (int k = 1; k <= 2; ++k) {
        RunResult result = cluster().run_on_client(
            ssh(cluster().host(k), "hostname; cat /etc/hostname; ip -4 -o addr show dev eth0 | "
                                   "awk '{print $4}'"));
        EXPECT_EQ(result.exit_code, 0) << result.err;
        std::string name = "node" + std::to_string(k);
        EXPECT_EQ(result.out, name + "\n" + name + "\n" + cluster().address(k) + "/24\n");
    }
}

TEST_F(SshFixture, RemoteShellIsPlainWithoutRootsBashrc) {
    // Root's ~/.bashrc runs pyenv on these machines; the hosts mask it so remote commands see
    // sshd's own PATH.
    RunResult result =
        cluster().run_on_client(ssh("node1", "echo \"$PATH\"; wc -c < ~/.bashrc; echo $HOME"));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out,
              "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n0\n/root\n");
}

TEST_F(SshFixture, HostsResolveAndReachEachOther) {
    RunResult result =
        cluster().run_on_client(ssh("node2", "getent hosts node1 | awk '{print $1, $2}'; "
                                             "exec 3<>/dev/tcp/node1/22 && head -c 8 <&3"));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, cluster().address(1) + " node1\nSSH-2.0-") << result.err;
}

TEST_F(SshFixture, ClientIsNoneOfTheHosts) {
    RunResult result = cluster().run_on_client(
        {"sh", "-c",
         "hostname; ip -4 -o addr show | awk '{print $2, $4}'; getent hosts node1 | awk '{print "
         "$1, $2}'"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "client\nlo 127.0.0.1/8\neth0 " + cluster().client_address() + "/24\n" +
                              cluster().address(1) + " node1\n");
}

TEST_F(SshFixture, ClientHomeIsTheClustersIdentity) {
    // OpenSSH and libssh read ~ from the passwd entry (/root), so the client binds its home
    // there: both paths show the same files.
    RunResult result = cluster().run_on_client({"sh", "-c",
                                                "echo $HOME; cmp ~/.ssh/known_hosts /root/.ssh/"
                                                "known_hosts && ls /root/.ssh"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, cluster().home().string() + "\nconfig\nid_ed25519\nid_ed25519.pub\n"
                                                      "known_hosts\n");
}

TEST_F(SshFixture, AliasesLeadToNode1) {
    ASSERT_EQ(cluster().aliases(), (std::vector<std::string>{"a001", "a002", "a003"}));
    for (const std::string& alias : cluster().aliases()) {
        RunResult result = cluster().run_on_client(ssh(alias, "hostname"));
        EXPECT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.out, "node1\n") << alias;
    }
}

TEST_F(SshFixture, UnknownHostIsRefused) {
    ClientHomeOptions only_node1;
    only_node1.known_hosts = std::vector<int>{1};
    auto home = cluster().make_home("only-node1", only_node1);
    RunResult refused = cluster().run_on_client(ssh("node2", "hostname"), {}, home);
    EXPECT_EQ(refused.exit_code, 255);
    EXPECT_EQ(refused.out, "");
    EXPECT_NE(refused.err.find("Host key verification failed.\r\n"), std::string::npos)
        << refused.err;
    RunResult known = cluster().run_on_client(ssh("node1", "hostname"), {}, home);
    EXPECT_EQ(known.exit_code, 0) << known.err;
    EXPECT_EQ(known.out, "node1\n");
}

TEST_F(SshFixture, ChangedHostKeyInKnownHostsIsRefused) {
    ClientHomeOptions node2_changed;
    node2_changed.changed_host_keys = {2};
    auto home = cluster().make_home("node2-changed", node2_changed);
    RunResult result = cluster().run_on_client(ssh("node2", "hostname"), {}, home);
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find("REMOTE HOST IDENTIFICATION HAS CHANGED"), std::string::npos)
        << result.err;
}

TEST_F(SshFixture, ReplacedHostKeyIsRefusedUntilRestored) {
    Finally restore([] { cluster().restore_host_key(1); });
    cluster().replace_host_key(1);
    RunResult changed = cluster().run_on_client(ssh("node1", "hostname"));
    EXPECT_EQ(changed.exit_code, 255);
    EXPECT_NE(changed.err.find("REMOTE HOST IDENTIFICATION HAS CHANGED"), std::string::npos)
        << changed.err;
    cluster().restore_host_key(1);
    RunResult restored = cluster().run_on_client(ssh("node1", "hostname"));
    EXPECT_EQ(restored.exit_code, 0) << restored.err;
    EXPECT_EQ(restored.out, "node1\n");
}

TEST_F(SshFixture, WrongKeyIsRefused) {
    ClientHomeOptions wrong_key;
    wrong_key.key = ClientKey::Wrong;
    auto home = cluster().make_home("wrong-key", wrong_key);
    RunResult result = cluster().run_on_client(ssh("node1", "hostname"), {}, home);
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find("root@node1: Permission denied (publickey).\r\n"), std::string::npos)
        << result.err;
}

TEST_F(SshFixture, RemoteProcessIsSeenOnItsHostOnly) {
    RemoteSleeper sleeper(cluster(), 1, "colossalai-fixture-sleeper");
    ASSERT_EQ(sleeper.remote().size(), 1u) << sleeper.err();
    pid_t remote = sleeper.remote()[0];
    EXPECT_TRUE(contains(cluster().pids_on_host(1), remote));
    EXPECT_FALSE(contains(cluster().pids_on_host(2), remote));
    EXPECT_TRUE(cluster().processes_with_marker_on_host(2, "colossalai-fixture-sleeper").empty());
    // In the client namespace only the ssh client carries the marker (in its command).
    EXPECT_EQ(cluster().processes_with_marker_on_host(0, "colossalai-fixture-sleeper"),
              std::vector<pid_t>{sleeper.session().pid()});

    ::kill(remote, SIGKILL);
    EXPECT_TRUE(eventually([&] { return !process_alive(remote); }, 10s));
    auto status = sleeper.session().wait(10s);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status)) << *status;
}

TEST_F(SshFixture, KilledSessionsDropTheConnectionAndLeaveTheCommand) {
    RemoteSleeper sleeper(cluster(), 2, "colossalai-fixture-orphan");
    ASSERT_EQ(sleeper.remote().size(), 1u) << sleeper.err();
    pid_t listener = cluster().sshd_pid(2);
    ASSERT_NE(listener, 0);

    cluster().kill_sshd_sessions(2);
    auto status = sleeper.session().wait(10s);
    ASSERT_TRUE(status.has_value()) << "ssh did not notice the dropped connection";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 255) << *status;
    EXPECT_NE(sleeper.err().find("closed by remote host"), std::string::npos) << sleeper.err();
    // Without a pty nothing stops the remote command: exactly what the launcher must handle.
    EXPECT_TRUE(process_alive(sleeper.remote()[0]));
    EXPECT_EQ(cluster().sshd_pid(2), listener);
    ::kill(sleeper.remote()[0], SIGKILL);

    RunResult again = cluster().run_on_client(ssh("node2", "hostname"));
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, "node2\n");
}

TEST_F(SshFixture, StoppedSshdRefusesConnections) {
    Finally restart([] { cluster().start_sshd(2); });
    cluster().stop_sshd(2);
    EXPECT_EQ(cluster().sshd_pid(2), 0);
    RunResult refused = cluster().run_on_client(ssh("node2", "hostname"));
    EXPECT_EQ(refused.exit_code, 255);
    EXPECT_EQ(refused.err, "ssh: connect to host node2 port 22: Connection refused\r\n");
    RunResult other = cluster().run_on_client(ssh("node1", "hostname"));
    EXPECT_EQ(other.out, "node1\n") << other.err;

    cluster().start_sshd(2);
    EXPECT_NE(cluster().sshd_pid(2), 0);
    RunResult back = cluster().run_on_client(ssh("node2", "hostname"));
    EXPECT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(back.out, "node2\n");
}

TEST_F(SshFixture, UnpluggedHostTimesOutInsteadOfRefusing) {
    Finally replug([] { cluster().set_link(2, true); });
    cluster().set_link(2, false);
    RunResult result = cluster().run_on_client(
        {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=1", "node2", "hostname"});
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_EQ(result.out, "");
    // No reset comes back: the attempt times out (after some 3 s ARP would give up instead:
    // "No route to host").
    EXPECT_EQ(result.err, "ssh: connect to host node2 port 22: Connection timed out\r\n");

    cluster().set_link(2, true);
    RunResult back = cluster().run_on_client(ssh("node2", "hostname"));
    EXPECT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(back.out, "node2\n");
}

TEST_F(SshFixture, ExecOnHostSeesWhatSshSessionsSee) {
    RunResult result = cluster().exec_on_host(
        2, {"sh", "-c", "hostname; getent hosts node1 | awk '{print $1, $2}'; wc -c <~/.bashrc"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "node2\n" + cluster().address(1) + " node1\n0\n");
}

} // namespace
} // namespace colossalai::test
