// `colossalai run` fanned out to 64 hosts: the ssh-config aliases a001..a064, all leading to
// node1's sshd (MaxStartups raised). Every node runs, with its own node rank, every line comes
// back prefixed with its host, and the summary has one line per host in the hosts' order.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class LaunchAtScaleOverSsh : public SharedSshCluster<1, 64> {};

TEST_F(LaunchAtScaleOverSsh, SixtyFourHostsEachRunTheirNode) {
    FakeTorchrun fake;
    // One line on stdout and one on stderr per node. Node rank 63 fails with 7, so the summary
    // shows a failure among the successes; it waits until the 63 others have ended (and a second
    // more, for their exit statuses to reach the launcher) so that fail-fast has nothing to stop.
    fake.behave("echo \"rank $rank out\"\necho \"rank $rank err\" >&2\n"
                "if [ \"$rank\" != 63 ]; then : >\"$record/$rank.done\"; exit 0; fi\n"
                "while [ \"$(ls \"$record\" | grep -c '\\.done$')\" -lt 63 ]; do sleep 0.1; done\n"
                "sleep 1\nexit 7\n");
    std::vector<std::string> hosts = cluster().aliases();
    ASSERT_EQ(hosts.size(), 64u);
    std::string host_list;
    for (const std::string& host : hosts) {
        host_list += (host_list.empty() ? "" : ",") + host;
    }

    LaunchOptions options;
    options.env = launcher_environment(cluster(), fake.bin());
    options.timeout = 180s;
    RunResult result =
        run_launcher(cluster(), {"-H", host_list, "--nproc_per_node", "1", "train.py"}, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 7) << describe(result);

    Words out, err_lines, summary;
    std::vector<int> ranks;
    for (int rank = 0; rank < 64; ++rank) {
        const std::string& host = hosts[static_cast<size_t>(rank)];
        out.push_back(host + ": rank " + std::to_string(rank) + " out");
        err_lines.push_back(host + ": rank " + std::to_string(rank) + " err");
        summary.push_back(host + (rank == 63 ? ": failure (exit code 7)" : ": success"));
        ranks.push_back(rank);
    }
    EXPECT_EQ(sorted(lines_of(result.out)), sorted(out)) << describe(result);
    std::string block = summary_block(summary);
    ASSERT_GE(result.err.size(), block.size()) << describe(result);
    EXPECT_EQ(result.err.substr(result.err.size() - block.size()), block) << describe(result);
    // On a very busy machine an exit status may reach the launcher after a064's failure: it
    // then says so and stops nodes that have in fact ended (their summary stays "success").
    Words node_err;
    for (const std::string& line :
         lines_of(result.err.substr(0, result.err.size() - block.size()))) {
        if (line != "colossalai: a064 failed (exit code 7); stopping the other nodes") {
            node_err.push_back(line);
        }
    }
    EXPECT_EQ(sorted(node_err), sorted(err_lines)) << describe(result);
    EXPECT_EQ(fake.ranks_started(), ranks);
    EXPECT_EQ(fake.argv(17),
              (Words{"--nproc_per_node=1", "--nnodes=64", "--node_rank=17",
                     "--master_addr=" + cluster().address(1), "--master_port=29500", "train.py"}));
}

} // namespace
} // namespace colossalai::test
