// `colossalai run` over SSH when a host cannot be used: unknown or changed host key, wrong
// identity, an encrypted key without agent, sshd down, a name that does not resolve, a host that
// does not answer. Each is one line naming the host, the job exits non-zero, and nothing of it runs
// on, or is left on, the other hosts.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

const std::string unknown_node2 =
    "unknown host node2 port 22 (not in known_hosts); after checking its key, trust it with: "
    "ssh-keyscan node2 >> ~/.ssh/known_hosts";

class LaunchErrorsOverSsh : public SharedSshCluster<2> {
protected:
    void SetUp() override {
        SharedSshCluster<2>::SetUp();
        // The job sleeps, its command line carrying a marker of this test.
        m_fake.behave("sleep 60 & wait\n");
    }

    RunResult launch(const std::string& hosts, const Words& extra = {},
                     const std::filesystem::path& home = {}) const {
        Words args = {"-H", hosts, "--nproc_per_node", "1", "--kill-grace", "2"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"train.py", m_marker});
        return run_fake_job(cluster(), m_fake, args, m_job.path(), home);
    }

    // No process of the job is left on host k (the grace is 2 s).
    void expect_nothing_left_on(int k) const {
        EXPECT_TRUE(eventually(
            [&] { return cluster().processes_with_marker_on_host(k, m_marker).empty(); }, 15s))
            << "the job still runs on node" << k;
        for (int rank : m_fake.ranks_started()) {
            pid_t pid = std::stoi(read_file(m_fake.recorded(rank, "pid")));
            EXPECT_TRUE(eventually([&] { return process_group_members(pid).empty(); }, 15s))
                << "the process group of node rank " << rank << " still lives";
        }
    }

    // Checks a two-node job where node2 failed with REASON: node1 was connected but its job was
    // never started (the launcher starts no job before every host is logged into), exit 255,
    // nothing ran or is left on node1.
    void expect_node2_failed_and_node1_not_started(const RunResult& result,
                                                   const std::string& reason) const {
        EXPECT_EQ(result.exit_code, 255) << describe(result);
        EXPECT_EQ(result.out, "") << describe(result);
        EXPECT_EQ(lines_of(result.err),
                  (Words{"colossalai: node2 failed (" + reason + "); starting no job",
                         "====== Training on All Nodes =====",
                         "node1: failure (not started, stopped by the launcher)",
                         "node2: failure (" + reason + ")"}))
            << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
        expect_nothing_left_on(1);
    }

    JobDir m_job;
    FakeTorchrun m_fake;
    std::string m_marker = "colossalai-ssh-errors-" + std::to_string(::getpid()) + "-" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name();
};

TEST_F(LaunchErrorsOverSsh, UnknownHostIsRefusedWithTheLineThatTrustsIt) {
    ClientHomeOptions only_node1;
    only_node1.known_hosts = std::vector<int>{1};
    auto home = cluster().make_home("only-node1", only_node1);

    RunResult alone = launch("node2", {}, home);
    EXPECT_EQ(alone.exit_code, 255) << describe(alone);
    EXPECT_EQ(alone.out, "");
    EXPECT_EQ(alone.err, summary_block({"node2: failure (" + unknown_node2 + ")"}));
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});

    RunResult both = launch("node1,node2", {}, home);
    expect_node2_failed_and_node1_not_started(both, unknown_node2);
}

TEST_F(LaunchErrorsOverSsh, NoKnownHostMeansNothingRunsAnywhere) {
    ClientHomeOptions none;
    none.known_hosts = std::vector<int>{};
    auto home = cluster().make_home("no-known-hosts", none);
    RunResult result = launch("node1,node2", {}, home);
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_EQ(result.out, "");
    for (int k = 1; k <= 2; ++k) {
        std::string host = "node" + std::to_string(k);
        std::string reason = "unknown host " + host +
                             " port 22 (not in known_hosts); after checking its key, trust it "
                             "with: ssh-keyscan " +
                             host + " >> ~/.ssh/known_hosts";
        // Every host's own error: the launcher waits for every connection to settle.
        Words line = lines_starting_with(result.err, host + ": failure (" + reason + ")");
        EXPECT_EQ(line.size(), 1u) << describe(result);
    }
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
    for (int k = 1; k <= 2; ++k) {
        EXPECT_EQ(cluster().processes_with_marker_on_host(k, m_marker), std::vector<pid_t>{});
    }
}

TEST_F(LaunchErrorsOverSsh, ChangedHostKeyIsRefusedLoudly) {
    Finally restore([] { cluster().restore_host_key(2); });
    cluster().replace_host_key(2);
    RunResult result = launch("node1,node2");
    expect_node2_failed_and_node1_not_started(
        result, "REMOTE HOST KEY HAS CHANGED for node2 port 22 — refusing to connect (someone may "
                "be intercepting the connection); if the change is expected, remove the old key "
                "with: ssh-keygen -R node2");
}

TEST_F(LaunchErrorsOverSsh, WrongIdentityNamesTheLoginUserAndHost) {
    ClientHomeOptions wrong;
    wrong.key = ClientKey::Wrong;
    auto home = cluster().make_home("wrong-key", wrong);
    RunResult result = launch("node1", {}, home);
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err,
              summary_block({"node1: failure (authentication failed for root@node1 (public key, "
                             "from ssh-agent and the identity files): no key was accepted)"}));
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

TEST_F(LaunchErrorsOverSsh, AnEncryptedKeyWithoutAgentPointsToSshAgent) {
    auto home = cluster().make_home("encrypted-key"); // the authorized key, and no agent
    RunResult encrypt = run({"ssh-keygen", "-q", "-p", "-P", "", "-N", "secret", "-f",
                             (home / ".ssh/id_ed25519").string()});
    ASSERT_EQ(encrypt.exit_code, 0) << encrypt.err;
    RunResult result = launch("node1", {}, home);
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_EQ(result.err,
              summary_block({"node1: failure (authentication failed for root@node1 (public key, "
                             "from ssh-agent and the identity files): no key was accepted; the "
                             "key /root/.ssh/id_ed25519 needs a passphrase, which the launcher "
                             "cannot ask for: add it to ssh-agent (eval $(ssh-agent); ssh-add "
                             "/root/.ssh/id_ed25519) and run again)"}));
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

TEST_F(LaunchErrorsOverSsh, StoppedSshdIsConnectionRefusedAndStartsNoJob) {
    Finally restart([] { cluster().start_sshd(2); });
    cluster().stop_sshd(2);
    RunResult result = launch("node1,node2");
    expect_node2_failed_and_node1_not_started(result, "connection refused (node2 port 22)");
}

TEST_F(LaunchErrorsOverSsh, NameThatDoesNotResolve) {
    RunResult result = launch("nosuchhost");
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err,
              summary_block({"nosuchhost: failure (cannot resolve host name 'nosuchhost')"}));
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

TEST_F(LaunchErrorsOverSsh, UnpluggedHostTimesOut) {
    Finally replug([] { cluster().set_link(2, true); });
    cluster().set_link(2, false);
    // The run's own limit (20 s) is far above the 2 s asked for, and far below the default 30 s.
    Words args = {"-H", "node2", "--nproc_per_node", "1", "--ssh-timeout", "2", "train.py"};
    LaunchOptions options;
    options.env = launcher_environment(cluster(), m_fake.bin());
    options.timeout = 20s;
    RunResult result = run_launcher(cluster(), args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_EQ(result.err,
              summary_block({"node2: failure (connection timed out after 2 s (node2 port 22))"}));
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

} // namespace
} // namespace colossalai::test
