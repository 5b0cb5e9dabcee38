#include "../check/sample_facts.hpp"

#include "colossalai/cluster_check/report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace colossalai::cluster_check {
namespace {

std::vector<NodeFacts> nodes_with(int count, int differing) {
    std::vector<NodeFacts> nodes;
    for (int k = 1; k <= count; ++k) {
        check::Facts facts = check::sample::everything_known();
        if (k == differing) {
            facts.torch_version = "2.1.0";
        }
        nodes.push_back({"node" + std::to_string(k), facts});
    }
    return nodes;
}

// The line of `text` that starts with `label`.
std::string line_of(const std::string& text, const std::string& label) {
    size_t at = text.find("\n" + label);
    if (at == std::string::npos) {
        return "";
    }
    return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(Columns, OnePerNodeUpToFourThenOnePerConfiguration) {
    EXPECT_EQ(columns(nodes_with(4, 2)).size(), 4U);
    auto groups = columns(nodes_with(6, 5));
    ASSERT_EQ(groups.size(), 2U);
    EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 1, 2, 3, 5}));
    EXPECT_EQ(groups[1], (std::vector<std::size_t>{4}));
}

TEST(ClusterText, AColumnPerConfigurationWithItsHostsAndTheVerdicts) {
    auto nodes = nodes_with(6, 5);
    std::string text = render_cluster_text(nodes, {{"node7", "connection refused (node7 port 22)"}},
                                           compare_nodes(nodes));
    EXPECT_EQ(text.rfind("#### Installation Report: 7 nodes ####\nChecked: 6 of 7, 2 "
                         "configurations:\n1. node1, node2, node3, node4, node6\n2. node5\n"
                         "Not checked:\n- node7: connection refused (node7 port 22)\n",
                         0),
              0U)
        << text;
    // A configuration of many nodes names the first three in its column.
    std::string hosts = line_of(text, "Hosts");
    EXPECT_NE(hosts.find("node1, node2, node3 +2 "), std::string::npos) << hosts;
    std::string torch = line_of(text, "PyTorch version:");
    EXPECT_NE(torch.find("1.13.1"), std::string::npos) << torch;
    EXPECT_NE(torch.find("2.1.0"), std::string::npos) << torch;
    // Values line up under their hosts: both columns start where the header's do.
    EXPECT_EQ(torch.find("1.13.1"), hosts.find("node1"));
    EXPECT_EQ(torch.find("2.1.0"), hosts.find("node5"));
    EXPECT_NE(text.find("Same PyTorch version: x\n"), std::string::npos);
    EXPECT_NE(text.find("Same CUDA version required by PyTorch: \u2713\n"), std::string::npos);
    // The advice of a column names its hosts.
    EXPECT_NE(text.find("- node5: "), std::string::npos) << text;
    EXPECT_NE(text.find("- node1, node2, node3 +2: "), std::string::npos) << text;
}

TEST(ClusterText, ValuesAreEscapedAndMissingRowsAreDashes) {
    auto nodes = nodes_with(2, 0);
    nodes[0].facts.cuda_home = "/opt/cuda\nx";
    nodes[1].facts.gpus->pop_back();
    std::string text = render_cluster_text(nodes, {}, compare_nodes(nodes));
    EXPECT_NE(line_of(text, "CUDA home:").find("/opt/cuda\\x0ax"), std::string::npos) << text;
    std::string gpu1 = line_of(text, "GPU 1:");
    EXPECT_NE(gpu1.find("NVIDIA A100-SXM4-40GB"), std::string::npos) << text;
    EXPECT_EQ(gpu1.substr(gpu1.size() - 1), "-") << gpu1;
}

TEST(ClusterText, NoNodeCheckedStillGivesTheVerdicts) {
    std::string text = render_cluster_text({}, {{"node1", "unknown host"}}, AcrossNodes{});
    EXPECT_EQ(text.find("Environment"), std::string::npos);
    EXPECT_NE(text.find("Same PyTorch version: N/A\n"), std::string::npos);
}

TEST(ClusterJson, NodesUnreachableVerdictsAndOk) {
    auto nodes = nodes_with(2, 2);
    auto report = nlohmann::json::parse(
        render_cluster_json(nodes, {{"node3", "connection timed out"}}, compare_nodes(nodes)));
    EXPECT_EQ(report["schema_version"], 3);
    EXPECT_EQ(report["nodes"]["node1"]["environment"]["torch_version"], "1.13.1");
    EXPECT_EQ(report["nodes"]["node2"]["environment"]["torch_version"], "2.1.0");
    EXPECT_EQ(report["unreachable"]["node3"], "connection timed out");
    EXPECT_EQ(report["across_nodes"]["same_torch"], false);
    EXPECT_EQ(report["across_nodes"]["same_gpus"], true);
    EXPECT_EQ(report["ok"], false);

    auto alike = nodes_with(2, 0);
    auto fine = nlohmann::json::parse(render_cluster_json(alike, {}, compare_nodes(alike)));
    EXPECT_TRUE(fine["unreachable"].empty());
    EXPECT_EQ(fine["ok"], check::exit_status(check::evaluate(alike[0].facts)) == 0);
}

} // namespace
} // namespace colossalai::cluster_check
