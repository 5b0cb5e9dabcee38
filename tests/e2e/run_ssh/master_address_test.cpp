// The master address the nodes are told when the user gives none: an ssh-config alias's HostName
// (never the alias, which only the launcher's config knows), and, when node 0 is this machine
// under a loopback name, the client's own address on the route to the other nodes. Both with
// --dry-run and with Debian's real torchrun (a gloo all-reduce must meet at that address).

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {
namespace {

class MasterAddressOverSsh : public SharedSshCluster<2> {
protected:
    // A client home whose ssh config knows gpu1 and gpu2 (names no host can resolve) by the
    // addresses of node1 and node2, and `1` and `2` by node%h (node1, node2).
    std::filesystem::path alias_home(const std::string& name) const {
        auto home = cluster().make_home(name);
        write_file(home / ".ssh/config", "Host gpu1\n    HostName " + cluster().address(1) +
                                             "\nHost gpu2\n    HostName " + cluster().address(2) +
                                             "\nHost 1 2\n    HostName node%h\n"
                                             "Host *\n    HostName ignored\n");
        return home;
    }

    LaunchOptions as_alias_home(const std::string& name) const {
        LaunchOptions options;
        options.home = alias_home(name);
        return options;
    }

    // The master address in each dry-run command line, in order.
    static Words masters(const std::string& out) {
        Words found;
        for (const std::string& line : lines_of(out)) {
            auto at = line.find("--master_addr=");
            if (at != std::string::npos) {
                found.push_back(line.substr(at + 14, line.find(' ', at) - at - 14));
            }
        }
        return found;
    }

    // A real torchrun job of one process per host; its all-reduce sums 1 + 2.
    RunResult train(const Words& hosts, const std::filesystem::path& home = {}) const {
        LaunchOptions options;
        options.env = launcher_environment(cluster(), {}, {{"GLOO_SOCKET_IFNAME", "eth0"}});
        options.home = home;
        options.timeout = std::chrono::seconds(180);
        Words args = {
            "-H", hosts[0] + "," + hosts[1], "--nproc_per_node", "1",
            // Debian's torchrun needs redirects set (tests/e2e/run_ssh/launch/torchrun_test.cpp).
            "--extra_launch_args", "redirects=1,tee=1,monitor_interval=1",
            (fixtures_dir() / "train_allreduce.py").string()};
        return run_launcher(cluster(), args, options);
    }
};

TEST_F(MasterAddressOverSsh, AnAliasGivesEveryNodeItsHostName) {
    RunResult result = run_launcher(
        cluster(), {"-H", "root@gpu1,gpu2", "--nproc_per_node", "1", "--dry-run", "train.py"},
        as_alias_home("aliases-1"));
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(masters(result.out), (Words{cluster().address(1), cluster().address(1)}))
        << describe(result);
    // %h expands to the alias as written.
    RunResult second =
        run_launcher(cluster(), {"-H", "2,1", "--nproc_per_node", "1", "--dry-run", "train.py"},
                     as_alias_home("aliases-2"));
    ASSERT_EQ(second.exit_code, 0) << describe(second);
    EXPECT_EQ(masters(second.out), (Words{"node2", "node2"})) << describe(second);
}

TEST_F(MasterAddressOverSsh, ABadValueInTheSshConfigDoesNotStopALocalRun) {
    LaunchOptions options;
    options.home = cluster().make_home("bad-config");
    write_file(options.home / ".ssh/config", "Host *\n    StrictHostKeyChecking maybe\n");
    RunResult result = run_launcher(
        cluster(), {"-H", "localhost", "--nproc_per_node", "1", "--dry-run", "t.py"}, options);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(masters(result.out), Words{"127.0.0.1"}) << describe(result);
}

TEST_F(MasterAddressOverSsh, ALocalLoopbackNode0GivesTheClientsAddress) {
    for (const char* first : {"localhost", "127.0.0.1"}) {
        RunResult result =
            run_launcher(cluster(), {"-H", std::string(first) + ",node1", "--nproc_per_node", "1",
                                     "--dry-run", "train.py"});
        ASSERT_EQ(result.exit_code, 0) << describe(result);
        EXPECT_EQ(masters(result.out),
                  (Words{cluster().client_address(), cluster().client_address()}))
            << describe(result);
        EXPECT_NE(result.out.find("(local)"), std::string::npos) << describe(result);
    }
    // Every node on this machine: loopback is right.
    RunResult local = run_launcher(
        cluster(), {"-H", "localhost,127.0.0.1", "--nproc_per_node", "1", "--dry-run", "t.py"});
    ASSERT_EQ(local.exit_code, 0) << describe(local);
    EXPECT_EQ(masters(local.out), (Words{"localhost", "localhost"})) << describe(local);
}

TEST_F(MasterAddressOverSsh, RealTorchrunMeetsAtAnAliasesHostName) {
    RunResult result = train({"gpu1", "gpu2"}, alias_home("aliases-torchrun"));
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(lines_starting_with(result.out, "gpu").size(), 2u) << describe(result);
    EXPECT_NE(result.out.find("\"sum\": 3"), std::string::npos) << describe(result);
    EXPECT_EQ(result.err.find("gai error"), std::string::npos) << describe(result);
}

TEST_F(MasterAddressOverSsh, RealTorchrunMeetsAtTheClientWhenNode0IsLocalhost) {
    RunResult result = train({"localhost", "node1"});
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("\"sum\": 3"), std::string::npos) << describe(result);
}

} // namespace
} // namespace colossalai::test
