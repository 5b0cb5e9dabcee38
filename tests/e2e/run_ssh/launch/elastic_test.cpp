// An elastic launch over SSH with Debian's real torchrun: three test hosts with --nnodes 2:3 and
// c10d rendezvous on node1 (the default: master_addr:master_port). node3 disappears mid-run (its
// rank SIGKILLs the node's whole job, torchrun's agent included); the launcher lets it leave,
// torchrun's agents on node1 and node2 meet again without it, and the training script finishes
// there with the new world size.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {
namespace {

class ElasticTorchrunOverSsh : public SharedSshCluster<3> {};

// The JSON lines of `host` on stdout (`host: [default0]:{...}`: torchrun's tee), without the
// prefixes.
Words json_lines_of(const std::string& out, const std::string& host) {
    Words lines;
    const std::string prefix = host + ": [default0]:{";
    for (const std::string& line : lines_of(out)) {
        if (line.rfind(prefix, 0) == 0) {
            lines.push_back(line.substr(prefix.size() - 1));
        }
    }
    return lines;
}

bool contains(const Words& lines, const std::string& text) {
    for (const std::string& line : lines) {
        if (line.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

TEST_F(ElasticTorchrunOverSsh, ANodeKilledMidRunLeavesAndTheOthersFinishWithTheNewWorldSize) {
    TempDir dir;
    const std::string script = (fixtures_dir() / "train_elastic.py").string();
    // redirects, tee: Debian's torchrun 1.13 needs them given (as the other real-torchrun tests);
    // monitor_interval: the agents see the failed all-reduce within a second; last_call_timeout:
    // a round with MIN nodes waits this long for more (torchrun's default is 30 s).
    const Words args = {"-H",
                        "node1,node2,node3",
                        "--nproc_per_node",
                        "1",
                        "--nnodes",
                        "2:3",
                        "--max_restarts",
                        "3",
                        "--extra_launch_args",
                        "redirects=1,tee=1,monitor_interval=1,rdzv_conf=last_call_timeout=5",
                        script};
    LaunchOptions options;
    options.env = launcher_environment(
        cluster(), {}, {{"GLOO_SOCKET_IFNAME", "eth0"}, {"TRAIN_LEAVE_HOST", "node3"}});
    options.cwd = dir.path();
    options.timeout = std::chrono::seconds(300);
    RunResult result = run_launcher(cluster(), args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);

    // All three trained together first, then node3 left.
    for (const std::string host : {"node1", "node2", "node3"}) {
        EXPECT_TRUE(contains(json_lines_of(result.out, host), "\"world_size\": 3"))
            << host << "\n"
            << describe(result);
    }
    EXPECT_TRUE(has_line(result.err, "node3: train_elastic: node3 leaves at step 2"))
        << describe(result);
    // node1 and node2 finished after a restart, two of them.
    for (const std::string host : {"node1", "node2"}) {
        Words lines = json_lines_of(result.out, host);
        ASSERT_FALSE(lines.empty()) << describe(result);
        EXPECT_NE(lines.back().find("\"done\": true"), std::string::npos) << describe(result);
        EXPECT_NE(lines.back().find("\"world_size\": 2"), std::string::npos) << describe(result);
        EXPECT_EQ(lines.back().find("\"restart\": 0"), std::string::npos) << describe(result);
        EXPECT_TRUE(contains(lines, "\"step\": 4, \"sum\": 2, \"world_size\": 2"))
            << describe(result);
    }
    EXPECT_FALSE(contains(json_lines_of(result.out, "node3"), "\"done\": true"))
        << describe(result);

    // The launcher said node3 left and went on; the summary says when.
    EXPECT_NE(result.err.find("colossalai: node3 left the job ("), std::string::npos)
        << describe(result);
    EXPECT_NE(result.err.find("); it goes on with 2 nodes (at least 2)\n"), std::string::npos)
        << describe(result);
    Words summary;
    std::string::size_type block = result.err.rfind("====== Training on All Nodes =====\n");
    ASSERT_NE(block, std::string::npos) << describe(result);
    summary = lines_of(result.err.substr(block));
    ASSERT_EQ(summary.size(), 4u) << describe(result);
    EXPECT_EQ(summary[1], "node1: success");
    EXPECT_EQ(summary[2], "node2: success");
    EXPECT_EQ(summary[3].rfind("node3: left ", 0), 0u) << summary[3];
    EXPECT_NE(summary[3].find(" s after the start ("), std::string::npos) << summary[3];
    EXPECT_NE(summary[3].find("); the job went on without it"), std::string::npos) << summary[3];
}

} // namespace
} // namespace colossalai::test
