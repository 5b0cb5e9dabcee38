#include "colossalai/launch/dry_run.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace colossalai::launch {
namespace {

using run::NodeCommand;
using run::Plan;

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

// An elastic launch: the rendezvous the nodes meet at, and how many must remain, in one line.
TEST(RenderDryRun, ShowsTheElasticRendezvous) {
    Plan plan;
    plan.torch_version = "2.1.0";
    plan.elastic = run::ElasticPlan{run::NodeRange{2, 3}, run::RdzvBackend::c10d,
                                    run::RdzvEndpoint{"node1", 29500}, "colossalai-0123", 3};
    plan.nodes = {node(0, "node1", false, std::nullopt)};
    plan.nodes[0].working_directory = "/w";
    plan.nodes[0].argv = {"torchrun", "x.py"};
    EXPECT_EQ(render_dry_run(plan),
              "dry run: 1 node, PyTorch 2.1.0\n"
              "elastic: --nnodes 2:3, rendezvous c10d at node1:29500, id colossalai-0123, "
              "max_restarts 3; the job goes on while 2 nodes remain\n"
              "[node 0] node1 (ssh) cwd=/w\n"
              "    torchrun x.py\n");
    plan.elastic->max_restarts.reset();
    plan.elastic->nodes = run::NodeRange{1, 2};
    plan.elastic->endpoint = run::RdzvEndpoint{"fe80::1", 1};
    EXPECT_NE(render_dry_run(plan).find("elastic: --nnodes 1:2, rendezvous c10d at [fe80::1]:1, "
                                        "id colossalai-0123; the job goes on while 1 node "
                                        "remains\n"),
              std::string::npos);
}

// --ssh-client openssh: the remote nodes say which client reaches them; a local one is local.
TEST(RenderDryRun, NamesTheOpensshClient) {
    Plan plan;
    plan.torch_version = "2.1.0";
    plan.launch = run::SshLaunch{std::nullopt, run::SshClient::openssh};
    plan.nodes = {node(0, "localhost", true, std::nullopt), node(1, "node2", false, std::nullopt),
                  node(2, "node3", false, 2222)};
    for (NodeCommand& each : plan.nodes) {
        each.working_directory = "/w";
        each.argv = {"torchrun", "x.py"};
    }
    EXPECT_EQ(render_dry_run(plan), "dry run: 3 nodes, PyTorch 2.1.0\n"
                                    "[node 0] localhost (local) cwd=/w\n"
                                    "    torchrun x.py\n"
                                    "[node 1] node2 (openssh) cwd=/w\n"
                                    "    torchrun x.py\n"
                                    "[node 2] node3 (openssh port 2222) cwd=/w\n"
                                    "    torchrun x.py\n");
}

// The cli writes the text straight to its output (100,000 nodes make some 16 MB): after what the
// stream already holds, the same text as render_dry_run's.
TEST(WriteDryRun, WritesTheTextAfterWhatTheStreamHolds) {
    Plan plan;
    plan.nodes = {node(0, "node1", false, std::nullopt), node(1, "node2", false, std::nullopt)};
    std::ostringstream out;
    out << "before\n";
    write_dry_run(plan, out);
    EXPECT_EQ(out.str(), "before\n"
                         "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n"
                         "[node 0] node1 (ssh) cwd='/work/my job'\n"
                         "    torchrun --nnodes=2 train.py 'it'\\''s' '$(id)' ''\n"
                         "[node 1] node2 (ssh) cwd='/work/my job'\n"
                         "    torchrun --nnodes=2 train.py 'it'\\''s' '$(id)' ''\n");
    EXPECT_EQ(out.str(), "before\n" + render_dry_run(plan));
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

// Every variable the environment flags set, with where it was set, and what they keep from
// the remote nodes; a local node keeps the launcher's own variables. The log directory too.
TEST(RenderDryRun, ListsWhatTheEnvironmentFlagsSetOrDropPerNode) {
    Plan plan;
    plan.log_dir = "/w/my logs";
    plan.nodes = {node(0, "localhost", true, std::nullopt), node(1, "node2", false, std::nullopt)};
    for (NodeCommand& each : plan.nodes) {
        each.working_directory = "/w";
        each.argv = {"torchrun", "x.py"};
        each.environment_changes.set = {{"A", "x y", "-x"}, {"B", "1", "/w/.colossalai_env:3"}};
        each.environment_changes.dropped = {"NCCL_DEBUG", "NCCL_SOCKET_IFNAME"};
        each.environment_changes.patterns = {"NCCL_*", "GLOO_SOCKET_IFNAME"};
    }
    EXPECT_EQ(render_dry_run(plan),
              "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n"
              "logs: '/w/my logs'\n"
              "[node 0] localhost (local) cwd=/w\n"
              "    torchrun x.py\n"
              "    env A='x y'  (-x)\n"
              "    env B=1  (/w/.colossalai_env:3)\n"
              "    env: a local node has the launcher's own variables (--env-exclude drops "
              "nothing here)\n"
              "[node 1] node2 (ssh) cwd=/w\n"
              "    torchrun x.py\n"
              "    env A='x y'  (-x)\n"
              "    env B=1  (/w/.colossalai_env:3)\n"
              "    env not passed (--env-exclude 'NCCL_*,GLOO_SOCKET_IFNAME'; the node keeps its "
              "own): NCCL_DEBUG NCCL_SOCKET_IFNAME\n");
    plan.nodes[1].environment_changes.dropped.clear();
    EXPECT_NE(render_dry_run(plan).find("    env: none of the launcher's variables match "
                                        "--env-exclude 'NCCL_*,GLOO_SOCKET_IFNAME'; the node "
                                        "keeps its own\n"),
              std::string::npos);
}

// --network-interface's variables, on every node, over what -x or an env file set.
TEST(RenderDryRun, ListsTheNetworkInterfaceVariablesPerNode) {
    Plan plan;
    plan.nodes = {node(0, "localhost", true, std::nullopt), node(1, "node2", false, std::nullopt)};
    for (NodeCommand& each : plan.nodes) {
        each.working_directory = "/w";
        each.argv = {"torchrun", "x.py"};
        each.environment_changes.set = {{"NCCL_SOCKET_IFNAME", "eth9", "-x"}, {"A", "1", "-x"}};
        each.flag_environment = {{"NCCL_SOCKET_IFNAME", "^docker,lo"},
                                 {"GLOO_SOCKET_IFNAME", "eth0"}};
    }
    plan.nodes[1].environment_changes.set.clear();
    EXPECT_EQ(render_dry_run(plan),
              "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n"
              "[node 0] localhost (local) cwd=/w\n"
              "    torchrun x.py\n"
              "    env A=1  (-x)\n"
              "    env NCCL_SOCKET_IFNAME='^docker,lo'  (--network-interface, over -x)\n"
              "    env GLOO_SOCKET_IFNAME=eth0  (--network-interface)\n"
              "[node 1] node2 (ssh) cwd=/w\n"
              "    torchrun x.py\n"
              "    env NCCL_SOCKET_IFNAME='^docker,lo'  (--network-interface)\n"
              "    env GLOO_SOCKET_IFNAME=eth0  (--network-interface)\n");
}

// Issue #24: what a node reached over SSH does not get of the launcher's own Slurm identity.
TEST(RenderDryRun, ListsTheLaunchersSlurmVariablesANodeDoesNotGet) {
    Plan plan;
    plan.nodes = {node(0, "localhost", true, std::nullopt), node(1, "node2", false, std::nullopt)};
    for (NodeCommand& each : plan.nodes) {
        each.working_directory = "/w";
        each.argv = {"torchrun", "x.py"};
    }
    plan.nodes[1].withheld_environment = {"SLURMD_NODENAME", "SLURM_NODEID", "SLURM_PROCID"};
    EXPECT_EQ(render_dry_run(plan),
              "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n"
              "[node 0] localhost (local) cwd=/w\n"
              "    torchrun x.py\n"
              "[node 1] node2 (ssh) cwd=/w\n"
              "    torchrun x.py\n"
              "    env not passed (the launcher's own Slurm task and node; the node has its "
              "own): SLURMD_NODENAME SLURM_NODEID SLURM_PROCID\n");
}

// With --launcher slurm the plan's launch intent decides: the srun the Slurm transport runs,
// then every node as `(slurm)`.
TEST(RenderDryRun, TheSrunOfASlurmLaunchComesFirst) {
    Plan plan;
    plan.nodes = {node(0, "node1", false, std::nullopt), node(1, "node2", false, std::nullopt)};
    for (NodeCommand& each : plan.nodes) {
        each.working_directory = "/w";
        each.argv = {"torchrun", "--node_rank=" + std::to_string(each.rank), "x.py"};
        each.words = job::NodeWords{1, std::nullopt};
    }
    plan.launch = run::SrunLaunch{{"-p", "gpu"}, false};
    std::string text = render_dry_run(plan);
    std::string head =
        "dry run: 2 nodes, PyTorch not found (assuming >= 2.0)\n"
        "srun (one task per node; /bin/sh -c SCRIPT runs its node's command below):\n    " +
        util::shell_join(slurm::srun_command(plan, run::SrunLaunch{{"-p", "gpu"}})) + "\n";
    EXPECT_EQ(text.substr(0, head.size()), head);
    EXPECT_NE(text.find("[node 1] node2 (slurm) cwd=/w\n    torchrun --node_rank=1 x.py\n"),
              std::string::npos)
        << text;
}

} // namespace
} // namespace colossalai::launch
