#include "colossalai/run/dry_run.hpp"

#include <gtest/gtest.h>

namespace colossalai::run {
namespace {

NodeCommand node(int rank, std::string host, bool local, std::optional<int> port) {
    NodeCommand node;
    node.rank = rank;
    node.host = std::move(host);
    node.local = local;
    node.ssh_port = port;
    node.working_directory = "/work/my job";
    node.argv = {"torchrun", "--nnodes=2", "train.py", "it's", "$(id)", ""};
    return node;
}

TEST(RenderDryRun, OneHeaderAndOneQuotedCommandPerNode) {
    Plan plan;
    plan.torch_version = "2.1.0";
    plan.nodes = {node(0, "localhost", true, 22), node(1, "alice@node2", false, 2222)};
    EXPECT_EQ(render_dry_run(plan), "dry run: 2 nodes, PyTorch 2.1.0\n"
                                    "[node 0] localhost (local) cwd='/work/my job'\n"
                                    "    torchrun --nnodes=2 train.py 'it'\\''s' '$(id)' ''\n"
                                    "[node 1] alice@node2 (ssh port 2222) cwd='/work/my job'\n"
                                    "    torchrun --nnodes=2 train.py 'it'\\''s' '$(id)' ''\n");
}

TEST(RenderDryRun, SaysWhenPyTorchWasNotFound) {
    Plan plan;
    plan.nodes = {node(0, "node1", false, std::nullopt)};
    plan.nodes[0].working_directory = "/w";
    plan.nodes[0].argv = {"torchrun", "x.py"};
    EXPECT_EQ(render_dry_run(plan), "dry run: 1 node, PyTorch not found (assuming >= 2.0)\n"
                                    "[node 0] node1 (ssh) cwd=/w\n"
                                    "    torchrun x.py\n");
}

} // namespace
} // namespace colossalai::run
