// Deciding which hosts are this machine never waits on DNS longer than the documented bound
// (run/local_host.hpp lookup_bound, 1 s; docs/run.md "Local hosts"): with a DNS server that never
// answers, `--dry-run` over three names that only DNS could resolve ends within seconds, where
// one lookup alone would take the resolver's 30 s timeout. The resolver lives in a network and
// mount namespace of the test's own: a veth pair whose far end holds the nameserver's address
// without answering (a permanent neighbour entry, so not even ARP fails), and a resolv.conf
// bind-mounted over /etc/resolv.conf there. No query leaves that namespace.

#include "support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

// The resolver's timeout in the namespace: far above the launcher's bound.
constexpr int resolver_timeout_s = 30;
// The launcher's bound (1 s) plus generous room for a loaded machine, far below the resolver's.
constexpr auto within = std::chrono::seconds(10);

class DeadResolver : public ::testing::Test {
protected:
    void SetUp() override {
        if (geteuid() != 0) {
            GTEST_SKIP() << "needs root (network and mount namespaces)";
        }
        write_file(m_dir / "resolv.conf", "nameserver 10.53.0.2\noptions timeout:" +
                                              std::to_string(resolver_timeout_s) + " attempts:1\n");
    }

    // `argv` in a fresh network and mount namespace whose DNS server never answers.
    RunResult run_without_dns(const Words& argv) const {
        Words command = {
            "unshare",
            "--net",
            "--mount",
            "--propagation",
            "private",
            "--",
            "/bin/sh",
            "-c",
            "ip link set lo up && ip link add v0 type veth peer name v1 &&"
            " ip addr add 10.53.0.1/24 dev v0 && ip link set v0 up && ip link set v1 up &&"
            " ip neigh add 10.53.0.2 lladdr 02:00:00:00:00:02 dev v0 nud permanent &&"
            " mount --bind \"$1\" /etc/resolv.conf || exit 125; shift; exec \"$@\"",
            "sh",
            (m_dir / "resolv.conf").string()};
        command.insert(command.end(), argv.begin(), argv.end());
        RunOptions options;
        options.timeout = std::chrono::seconds(3 * resolver_timeout_s);
        return run(command, options);
    }

    static std::string describe(const RunResult& result) {
        return "exit " + std::to_string(result.exit_code) + "\n--- stdout:\n" + result.out +
               "--- stderr:\n" + result.err;
    }

    TempDir m_dir;
};

TEST_F(DeadResolver, TheNamespaceResolverReallyNeverAnswers) {
    // Without this, the test below could pass against a resolver that fails fast.
    RunResult probe = run_without_dns({"timeout", "2", "getent", "hosts", "gpu-a"});
    EXPECT_EQ(probe.exit_code, 124) << describe(probe);
}

TEST_F(DeadResolver, DryRunPlacesUnresolvedHostsWithinTheBound) {
    auto start = std::chrono::steady_clock::now();
    RunResult result = run_without_dns({binary().string(), "run", "-H", "gpu-a,gpu-b,gpu-c",
                                        "--nproc_per_node", "1", "--dry-run", "train.py"});
    auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_LT(elapsed, within) << describe(result);
    // No answer in time: other machines, reached over SSH; the master is node 0's name.
    for (const char* node :
         {"[node 0] gpu-a (ssh)", "[node 1] gpu-b (ssh)", "[node 2] gpu-c (ssh)"}) {
        EXPECT_NE(result.out.find(node), std::string::npos) << node << "\n" << describe(result);
    }
    EXPECT_NE(result.out.find("--master_addr=gpu-a "), std::string::npos) << describe(result);
}

TEST_F(DeadResolver, ALocalNode0WithoutARouteToTheOthersIsRefusedWithinTheBound) {
    auto start = std::chrono::steady_clock::now();
    RunResult result = run_without_dns({binary().string(), "run", "-H", "localhost,gpu-a",
                                        "--nproc_per_node", "1", "--dry-run", "train.py"});
    auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_LT(elapsed, within) << describe(result);
    EXPECT_EQ(result.exit_code, 1) << describe(result);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err,
              "colossalai: error: node 0 'localhost' is this machine, and no address of it on "
              "the way to 'gpu-a' was found (does 'gpu-a' resolve?); set --master_addr to an "
              "address every node can reach\n")
        << describe(result);
}

} // namespace
} // namespace colossalai::test
