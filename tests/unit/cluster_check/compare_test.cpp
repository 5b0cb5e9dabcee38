#include "../check/sample_facts.hpp"

#include "colossalai/cluster_check/compare.hpp"

#include <gtest/gtest.h>

namespace colossalai::cluster_check {
namespace {

// Two nodes whose every check is ✓.
std::vector<NodeFacts> two_alike() {
    check::Facts facts = check::sample::everything_known();
    facts.gpus =
        std::vector<check::Gpu>{{"NVIDIA A100-SXM4-40GB", "8.0"}, {"NVIDIA A100-SXM4-40GB", "8.0"}};
    return {{"node1", facts}, {"node2", facts}};
}

TEST(CompareNodes, AlikeNodesAreTheSameEverywhere) {
    AcrossNodes across = compare_nodes(two_alike());
    EXPECT_EQ(across.same_torch, true);
    EXPECT_EQ(across.same_torch_cuda, true);
    EXPECT_EQ(across.same_system_cuda, true);
    EXPECT_EQ(across.same_colossalai, true);
    EXPECT_EQ(across.same_driver_cuda, true);
    EXPECT_EQ(across.same_gpus, true);
}

TEST(CompareNodes, EachDifferenceHasItsVerdict) {
    auto nodes = two_alike();
    nodes[1].facts.torch_version = "2.1.0";
    nodes[1].facts.aot_cuda = "12.1"; // another AOT build of the same version
    nodes[1].facts.gpus->pop_back();  // one GPU fewer
    AcrossNodes across = compare_nodes(nodes);
    EXPECT_EQ(across.same_torch, false);
    EXPECT_EQ(across.same_torch_cuda, true);
    EXPECT_EQ(across.same_colossalai, false);
    EXPECT_EQ(across.same_gpus, false);
    EXPECT_EQ(across.same_driver_cuda, true);
}

TEST(CompareNodes, AKnownValueDiffersFromAnUnknownOneAndAllUnknownIsNA) {
    auto nodes = two_alike();
    nodes[1].facts.driver_cuda.reset();
    nodes[0].facts.system_cuda.reset();
    nodes[1].facts.system_cuda.reset();
    AcrossNodes across = compare_nodes(nodes);
    EXPECT_EQ(across.same_driver_cuda, false);
    EXPECT_EQ(across.same_system_cuda, std::nullopt);
}

TEST(CompareNodes, ACpuOnlyBuildDiffersFromACudaBuildOfTheSameVersion) {
    auto nodes = two_alike();
    nodes[1].facts.torch_cpu_only = true;
    EXPECT_EQ(compare_nodes(nodes).same_torch, false);
}

TEST(CompareNodes, FewerThanTwoNodesIsNA) {
    std::vector<NodeFacts> one = {{"node1", check::sample::everything_known()}};
    EXPECT_EQ(compare_nodes(one).same_torch, std::nullopt);
    EXPECT_EQ(compare_nodes({}).same_gpus, std::nullopt);
}

TEST(ClusterExitStatus, UnreachableWinsThenAnyXOrDifference) {
    auto nodes = two_alike();
    AcrossNodes alike = compare_nodes(nodes);
    EXPECT_EQ(cluster_exit_status(nodes, {}, alike), 0);
    EXPECT_EQ(cluster_exit_status(nodes, {{"node3", "connection refused"}}, alike), 255);

    auto differing = nodes;
    differing[1].facts.driver_cuda = "12.2";
    EXPECT_EQ(cluster_exit_status(differing, {}, compare_nodes(differing)), 1);

    auto failing = nodes;
    failing[0].facts.system_cuda = "12.1"; // x: PyTorch wants 11.7 ...
    failing[1].facts.system_cuda = "12.1"; // ... on both nodes, which agree
    AcrossNodes across = compare_nodes(failing);
    EXPECT_EQ(across.same_system_cuda, true);
    EXPECT_EQ(cluster_exit_status(failing, {}, across), 1);
}

} // namespace
} // namespace colossalai::cluster_check
