// `colossalai run` uses SSH the OpenSSH way: a ~/.ssh/config alias with HostName, User, Port and
// IdentityFile; --ssh-port winning over the config; a known_hosts entry `[host]:port` for a port
// other than 22, and the ssh-keyscan line of the refusal that adds it. node2 runs a second sshd
// on port 2222 for these tests.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

// A second sshd on host k, port `port`, with the host's own key and settings; stopped by PID.
class SecondSshd {
public:
    SecondSshd(const SshCluster& cluster, int k, int port)
        : m_pid_file(m_dir / "sshd.pid"), m_log(m_dir / "sshd.log") {
        std::string config;
        for (const std::string& line :
             lines_of(read_file(cluster.dir() / cluster.host(k) / "sshd_config"))) {
            if (line.rfind("Port ", 0) == 0) {
                config += "Port " + std::to_string(port) + "\n";
            } else if (line.rfind("PidFile ", 0) == 0) {
                config += "PidFile " + m_pid_file.string() + "\n";
            } else {
                config += line + "\n";
            }
        }
        write_file(m_dir / "sshd_config", config);
        // Without -D sshd forks, writes its pidfile once it listens, and the parent exits.
        RunResult started = cluster.exec_on_host(
            k, {"/usr/sbin/sshd", "-f", (m_dir / "sshd_config").string(), "-E", m_log.string()});
        if (started.exit_code != 0) {
            throw std::runtime_error("second sshd did not start: " + started.err);
        }
        eventually([&] { return !read_file(m_pid_file).empty(); }, 10s);
    }
    ~SecondSshd() {
        std::string text = read_file(m_pid_file);
        if (!text.empty()) {
            pid_t pid = static_cast<pid_t>(std::stol(text));
            ::kill(pid, SIGTERM);
            eventually([&] { return !process_alive(pid); }, 10s);
        }
    }
    SecondSshd(const SecondSshd&) = delete;
    SecondSshd& operator=(const SecondSshd&) = delete;

    bool listening() const { return !read_file(m_pid_file).empty(); }
    std::string log() const { return read_file(m_log); }

private:
    TempDir m_dir{"colossalai-second-sshd"};
    std::filesystem::path m_pid_file;
    std::filesystem::path m_log;
};

void append_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::app) << text;
}

class LaunchSshConfig : public SharedSshCluster<2> {
protected:
    void SetUp() override {
        SharedSshCluster<2>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        // Where each node runs, and the port its SSH connection came in on.
        m_fake.behave("echo \"rank $rank on $(hostname) port ${SSH_CONNECTION##* }\"\n");
        m_sshd = std::make_unique<SecondSshd>(cluster(), 2, 2222);
        ASSERT_TRUE(m_sshd->listening()) << m_sshd->log();
    }

    RunResult launch(const Words& launcher_args, const std::filesystem::path& home) const {
        Words args = launcher_args;
        args.insert(args.end(), {"--nproc_per_node", "1", "train.py"});
        LaunchOptions options;
        options.env = launcher_environment(cluster(), m_fake.bin());
        options.home = home;
        return run_launcher(cluster(), args, options);
    }

    // node2's known_hosts line for `name` ("node2", "[node2]:2222").
    std::string node2_known_host(const std::string& name) const {
        return name + " " + read_file(cluster().dir() / "node2/ssh_host_ed25519_key.pub");
    }

    FakeTorchrun m_fake;
    std::unique_ptr<SecondSshd> m_sshd;
};

TEST_F(LaunchSshConfig, HostAliasWithHostNameUserPortAndIdentityFile) {
    // No default identity: only the IdentityFile of the alias can log in.
    ClientHomeOptions no_key;
    no_key.key = ClientKey::None;
    auto home = cluster().make_home("alias", no_key);
    std::filesystem::copy_file(cluster().client_key(), home / ".ssh/job_key");
    std::filesystem::permissions(home / ".ssh/job_key", std::filesystem::perms::owner_read |
                                                            std::filesystem::perms::owner_write);
    append_file(home / ".ssh/config", "Host trainer\n    HostName node2\n    User root\n"
                                      "    Port 2222\n    IdentityFile ~/.ssh/job_key\n"
                                      "Host ghost\n    HostName node2\n    User ghost\n"
                                      "    Port 2222\n    IdentityFile ~/.ssh/job_key\n");
    append_file(home / ".ssh/known_hosts", node2_known_host("[node2]:2222"));

    RunResult result = launch({"-H", "trainer"}, home);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out, "rank 0 on node2 port 2222\n") << describe(result);
    EXPECT_EQ(result.err, summary_block({"trainer: success"})) << describe(result);

    // The config's User is the login: refused, and the message names it.
    RunResult ghost = launch({"-H", "ghost"}, home);
    EXPECT_EQ(ghost.exit_code, 255) << describe(ghost);
    EXPECT_EQ(ghost.err,
              summary_block({"ghost: failure (authentication failed for ghost@node2 (public key, "
                             "from ssh-agent and the identity files): no key was accepted)"}))
        << describe(ghost);

    // Without the alias's IdentityFile there is no key at all.
    RunResult plain = launch({"-H", "node2"}, home);
    EXPECT_EQ(plain.exit_code, 255) << describe(plain);
    EXPECT_EQ(plain.err,
              summary_block({"node2: failure (authentication failed for root@node2 (public key, "
                             "from ssh-agent and the identity files): no key was accepted)"}))
        << describe(plain);
}

TEST_F(LaunchSshConfig, SshPortOptionWinsOverTheConfig) {
    auto home = cluster().make_home("port-option");
    append_file(home / ".ssh/config", "Host trainer\n    HostName node2\n    Port 2222\n");
    append_file(home / ".ssh/known_hosts", node2_known_host("[node2]:2222"));

    // `trainer` is a name of the ssh config only, which the nodes cannot resolve: their
    // preflight would refuse it as the master address (docs/run.md, "Preflight").
    RunResult by_config = launch({"-H", "trainer,node1", "--master_addr", "node2"}, home);
    EXPECT_EQ(by_config.exit_code, 0) << describe(by_config);
    EXPECT_EQ(sorted(lines_of(by_config.out)),
              sorted({"trainer: rank 0 on node2 port 2222", "node1: rank 1 on node1 port 22"}))
        << describe(by_config);

    RunResult by_option =
        launch({"-H", "trainer,node1", "--ssh-port", "22", "--master_addr", "node2"}, home);
    EXPECT_EQ(by_option.exit_code, 0) << describe(by_option);
    EXPECT_EQ(sorted(lines_of(by_option.out)),
              sorted({"trainer: rank 0 on node2 port 22", "node1: rank 1 on node1 port 22"}))
        << describe(by_option);
    EXPECT_EQ(by_option.err, summary_block({"trainer: success", "node1: success"}));
}

TEST_F(LaunchSshConfig, OtherPortNeedsItsBracketedKnownHostsEntry) {
    auto home = cluster().make_home("other-port");
    const std::string refusal = "node2: failure (unknown host node2 port 2222 (not in "
                                "known_hosts); after checking its key, trust it with: ";
    const std::string keyscan = "ssh-keyscan -p 2222 node2 >> ~/.ssh/known_hosts";

    RunResult unknown = launch({"-H", "node2", "--ssh-port", "2222"}, home);
    EXPECT_EQ(unknown.exit_code, 255) << describe(unknown);
    EXPECT_EQ(unknown.err, summary_block({refusal + keyscan + ")"})) << describe(unknown);
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});

    // The advice works as given, and writes the `[node2]:2222` form.
    RunResult scanned = cluster().run_on_client({"sh", "-c", keyscan + " 2>/dev/null"}, {}, home);
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
    std::string pub = lines_of(read_file(cluster().dir() / "node2/ssh_host_ed25519_key.pub"))[0];
    std::string type_and_key = pub.substr(0, pub.find(' ', pub.find(' ') + 1));
    EXPECT_TRUE(has_line(read_file(home / ".ssh/known_hosts"), "[node2]:2222 " + type_and_key))
        << read_file(home / ".ssh/known_hosts");

    RunResult trusted = launch({"-H", "node2", "--ssh-port", "2222"}, home);
    EXPECT_EQ(trusted.exit_code, 0) << describe(trusted);
    EXPECT_EQ(trusted.out, "rank 0 on node2 port 2222\n") << describe(trusted);
    EXPECT_EQ(trusted.err, summary_block({"node2: success"}));
}

TEST_F(LaunchSshConfig, ChangedKeyOnOtherPortIsRefusedWithAdviceThatWorks) {
    auto home = cluster().make_home("changed-other-port");
    append_file(home / ".ssh/known_hosts",
                "[node2]:2222 " + read_file(cluster().spare_host_key().string() + ".pub"));
    const std::string forget = "ssh-keygen -R '[node2]:2222'";

    RunResult changed = launch({"-H", "node2", "--ssh-port", "2222"}, home);
    EXPECT_EQ(changed.exit_code, 255) << describe(changed);
    EXPECT_EQ(changed.err,
              summary_block({"node2: failure (REMOTE HOST KEY HAS CHANGED for node2 port 2222 — "
                             "refusing to connect (someone may be intercepting the connection); "
                             "if the change is expected, remove the old key with: " +
                             forget + ")"}))
        << describe(changed);
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});

    // Following the advice (then the unknown host's) leads to a working job.
    RunResult forgot = cluster().run_on_client({"sh", "-c", forget + " 2>/dev/null"}, {}, home);
    ASSERT_EQ(forgot.exit_code, 0) << forgot.err;
    RunResult scanned = cluster().run_on_client(
        {"sh", "-c", "ssh-keyscan -p 2222 node2 >> ~/.ssh/known_hosts 2>/dev/null"}, {}, home);
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
    RunResult trusted = launch({"-H", "node2", "--ssh-port", "2222"}, home);
    EXPECT_EQ(trusted.exit_code, 0) << describe(trusted);
    EXPECT_EQ(trusted.out, "rank 0 on node2 port 2222\n") << describe(trusted);
}

} // namespace
} // namespace colossalai::test
