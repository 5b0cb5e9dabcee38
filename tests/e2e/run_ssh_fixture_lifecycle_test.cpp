// Proves that test clusters never leak: teardown removes every namespace and process, a cluster
// whose owner died is removed by the next cleanup, and concurrent clusters stay apart.

#include "run_ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::vector<std::string> ssh(const std::string& host, const std::string& command) {
    return {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, command};
}

bool namespace_exists(const std::string& name) {
    return fs::exists("/run/netns/" + name);
}

RunResult cluster_sh(const std::vector<std::string>& args) {
    std::vector<std::string> argv{cluster_script().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
}

class SshClusterLifecycle : public ::testing::Test {
protected:
    void SetUp() override {
        if (!can_run_ssh_cluster()) {
            GTEST_SKIP() << "needs root (network namespaces, sshd)";
        }
    }
};

TEST_F(SshClusterLifecycle, TeardownLeavesNoNamespaceAndNoProcess) {
    const std::string marker = "colossalai-fixture-teardown";
    std::vector<std::string> namespaces;
    std::vector<pid_t> processes;
    {
        SshCluster cluster(2);
        namespaces = cluster.network_namespaces();
        ASSERT_EQ(namespaces.size(), 4u);
        for (const std::string& name : namespaces) {
            EXPECT_TRUE(namespace_exists(name)) << name;
        }
        // A job left behind on a host (connection dropped) must not survive the cluster either.
        RunResult started = cluster.run_on_client(
            ssh("node2", "exec -a " + marker + " sleep 60 </dev/null >/dev/null 2>&1 &"));
        ASSERT_EQ(started.exit_code, 0) << started.err;
        ASSERT_TRUE(eventually(
            [&] { return !cluster.processes_with_marker_on_host(2, marker).empty(); }, 10s));
        processes = cluster.pids_on_host(1);
        for (pid_t pid : cluster.pids_on_host(2)) {
            processes.push_back(pid);
        }
        processes.push_back(cluster.sshd_pid(1));
        processes.push_back(cluster.sshd_pid(2));
        EXPECT_NE(cluster.sshd_pid(1), 0);
        EXPECT_NE(cluster.sshd_pid(2), 0);
    }
    for (const std::string& name : namespaces) {
        EXPECT_FALSE(namespace_exists(name)) << name;
    }
    for (pid_t pid : processes) {
        EXPECT_FALSE(process_alive(pid)) << pid;
    }
    EXPECT_TRUE(processes_with_marker(marker).empty());
}

TEST_F(SshClusterLifecycle, DownIsIdempotent) {
    TempDir dir("colossalai-ssh-cluster");
    RunResult up =
        cluster_sh({"up", dir.path().string(), "1", "--owner", std::to_string(getpid())});
    ASSERT_EQ(up.exit_code, 0) << up.err;
    RunResult first = cluster_sh({"down", dir.path().string()});
    RunResult second = cluster_sh({"down", dir.path().string()});
    EXPECT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(second.err, "");
    EXPECT_FALSE(fs::exists(dir / "cluster.env"));
}

TEST_F(SshClusterLifecycle, CleanupRemovesClustersOfDeadOwnersOnly) {
    SshCluster live(1);
    TempDir dir("colossalai-ssh-cluster");
    TempDir logs;
    Background owner({"sleep", "60"}, {}, logs / "out", logs / "err");
    RunResult up =
        cluster_sh({"up", dir.path().string(), "1", "--owner", std::to_string(owner.pid())});
    ASSERT_EQ(up.exit_code, 0) << up.err;
    std::string prefix = read_file(dir / "cluster.env");
    std::string stale_ns;
    size_t at = prefix.find("CLUSTER_PREFIX=");
    ASSERT_NE(at, std::string::npos);
    stale_ns = prefix.substr(at + 15, prefix.find('\n', at) - at - 15) + "-node1";
    pid_t stale_sshd = std::stoi(read_file(dir / "node1/sshd.pid"));
    ASSERT_TRUE(namespace_exists(stale_ns));

    RunResult while_alive = cluster_sh({"cleanup-stale"});
    EXPECT_EQ(while_alive.exit_code, 0) << while_alive.err;
    EXPECT_TRUE(namespace_exists(stale_ns)) << "removed while its owner lives";

    owner.signal(SIGKILL);
    ASSERT_TRUE(owner.wait(10s).has_value());
    RunResult cleanup = cluster_sh({"cleanup-stale"});
    EXPECT_EQ(cleanup.exit_code, 0) << cleanup.err;
    // Usually this call says "removing stale cluster"; under `ctest -j` another test's bring-up
    // (which cleans up stale clusters first) may have done it already: what counts is the end.
    EXPECT_FALSE(namespace_exists(stale_ns));
    EXPECT_FALSE(process_alive(stale_sshd));

    // The cluster of a live owner is untouched.
    for (const std::string& name : live.network_namespaces()) {
        EXPECT_TRUE(namespace_exists(name)) << name;
    }
    RunResult still = live.run_on_client(ssh("node1", "hostname"));
    EXPECT_EQ(still.out, "node1\n") << still.err;
}

TEST_F(SshClusterLifecycle, ConcurrentClustersGetSeparateNetworks) {
    SshCluster first(1);
    SshCluster second(1);
    EXPECT_NE(first.address(1), second.address(1));
    EXPECT_NE(first.network_namespace(1), second.network_namespace(1));
    // Each client sees its own node1 (identified by its host key through known_hosts).
    RunResult one = first.run_on_client(ssh("node1", "hostname -I"));
    RunResult two = second.run_on_client(ssh("node1", "hostname -I"));
    EXPECT_EQ(one.out, first.address(1) + " \n") << one.err;
    EXPECT_EQ(two.out, second.address(1) + " \n") << two.err;
}

TEST_F(SshClusterLifecycle, BadArgumentsAreRefused) {
    TempDir dir("colossalai-ssh-cluster");
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    std::vector<Case> cases{
        {{"up", dir.path().string(), "0"}, "cluster.sh: N must be 1..250: 0\n"},
        {{"up", dir.path().string(), "2", "--aliases", "x"},
         "cluster.sh: --aliases must be 0..1024: x\n"},
        {{"up", "/root/x", "1"},
         "cluster.sh: DIR must not be under /root (the client binds its home over /root): "
         "/root/x\n"},
        {{"exec", dir.path().string(), "true"},
         "cluster.sh: no cluster in " + dir.path().string() + "\n"},
        {{"frobnicate"}, "cluster.sh: unknown command: frobnicate (see cluster.sh help)\n"},
    };
    for (const Case& c : cases) {
        RunResult result = cluster_sh(c.args);
        EXPECT_EQ(result.exit_code, 1) << c.args[0];
        EXPECT_EQ(result.err, c.err);
    }
}

} // namespace
} // namespace colossalai::test
