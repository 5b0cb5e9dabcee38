#include "find_local.hpp"
#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/selection.hpp"
#include "colossalai/run/validate.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

// GPU indices in --include / --exclude (DeepSpeed's `w0:0,1@w1`): which hosts, which GPUs.

const std::string hostfile = "w0 slots=4\nw1 slots=4\nw2 slots=2\nw3\n";

Options selecting(std::optional<std::string> include, std::optional<std::string> exclude) {
    Options options;
    options.hostfile = "hosts";
    if (include) {
        options.include = parse_host_selection(*include, "--include");
    }
    if (exclude) {
        options.exclude = parse_host_selection(*exclude, "--exclude");
    }
    options.script = "train.py";
    return options;
}

// Each host kept as `name:gpus` (`name` alone: no GPUs named).
std::vector<std::string> select(const Options& options, const std::string& text = hostfile) {
    std::vector<std::string> shown;
    for (const Host& host : select_hosts(parse_hostfile(text, "hosts"), options, "the hostfile")) {
        shown.push_back(host.gpus ? host.name + ":" + render_gpus(*host.gpus) : host.name);
    }
    return shown;
}

using Names = std::vector<std::string>;

TEST(GpuSelection, IncludeKeepsTheNamedGpusInTheOrderWritten) {
    EXPECT_EQ(select(selecting("w0:0,1@w1:2,3", std::nullopt)), (Names{"w0:0,1", "w1:2,3"}));
    EXPECT_EQ(select(selecting("w1:3,1@w0:0", std::nullopt)), (Names{"w1:3,1", "w0:0"}));
    // A whole host beside named GPUs: all its slots.
    EXPECT_EQ(select(selecting("w0@w2:1", std::nullopt)), (Names{"w0:0,1,2,3", "w2:1"}));
    // A host without slots= takes the indices as named (the GPU preflight checks them).
    EXPECT_EQ(select(selecting("w3:5", std::nullopt)), (Names{"w3:5"}));
    // No index anywhere: hosts only, as the host list always did.
    EXPECT_EQ(select(selecting("w0@w2", std::nullopt)), (Names{"w0", "w2"}));
}

TEST(GpuSelection, ExcludeRemovesGpusAndHostsKeepingTheFilesOrder) {
    const std::string pool = "w0 slots=4\nw1 slots=4\nw2 slots=2\n";
    EXPECT_EQ(select(selecting(std::nullopt, "w1:0"), pool),
              (Names{"w0:0,1,2,3", "w1:1,2,3", "w2:0,1"}));
    EXPECT_EQ(select(selecting(std::nullopt, "w1:0@w0"), pool), (Names{"w1:1,2,3", "w2:0,1"}));
    // A host left without GPUs is dropped, as DeepSpeed does.
    EXPECT_EQ(select(selecting(std::nullopt, "w2:1,0"), pool), (Names{"w0:0,1,2,3", "w1:0,1,2,3"}));
    // Whole hosts only: hosts only.
    EXPECT_EQ(select(selecting(std::nullopt, "w1@w2"), pool), (Names{"w0"}));
}

// A host is the machine it names, as in the host lists: spelling, user and IPv6 brackets aside.
TEST(GpuSelection, NodesAreMatchedAsMachines) {
    const std::string pool = "alice@n1 slots=2\n::1 slots=2\nN3 slots=2\n";
    EXPECT_EQ(select(selecting("[::1]:1@n1:0@n3.:1,0", std::nullopt), pool),
              (Names{"::1:1", "alice@n1:0", "N3:1,0"}));
    EXPECT_EQ(select(selecting(std::nullopt, "n1:0@0::1"), pool), (Names{"alice@n1:1", "N3:0,1"}));
    EXPECT_EQ(test::usage_message([&] { select(selecting("n4:0", std::nullopt), pool); }),
              "--include: host 'n4' is not in the hostfile");
}

TEST(GpuSelection, NumNodesCountsTheSelectedNodes) {
    Options options = selecting(std::nullopt, "w1:0");
    options.num_nodes = 1;
    EXPECT_EQ(select(options, "w0 slots=4\nw1 slots=4\n"), (Names{"w0:0,1,2,3"}));
}

// `a@b`: the host b as the user a, or the hosts a and b; the hostfile's entries decide.
TEST(GpuSelection, TheHostfileDecidesWhatAnAtMeans) {
    EXPECT_EQ(select(selecting("w0@w1", std::nullopt), "w0\nw1\n"), (Names{"w0", "w1"}));
    EXPECT_EQ(select(selecting("alice@n1", std::nullopt), "alice@n1\nn2\n"), (Names{"alice@n1"}));
    EXPECT_EQ(select(selecting(std::nullopt, "w0@w1"), "w0\nw1\nw2\n"), (Names{"w2"}));
    EXPECT_EQ(test::usage_message(
                  [&] { select(selecting("alice@n1", std::nullopt), "alice@n1\nalice\n"); }),
              "--include 'alice@n1' reads two ways in the hostfile: 'alice@n1' (a host as a user) "
              "or 'alice', 'n1' (DeepSpeed's '@' between nodes); write the host without its user "
              "(the hostfile's entry says who logs in)");
    // Neither fits: the host list's reading explains.
    EXPECT_EQ(test::usage_message([&] { select(selecting("bob@n1", std::nullopt), "alice@n1\n"); }),
              "--include: host 'bob@n1' is not in the hostfile");
}

struct GpuSelectionErrorCase {
    Options options;
    std::string message;
};

TEST(GpuSelection, RefusesIndicesBeyondSlotsUnknownHostsAndEmptySelections) {
    const std::vector<GpuSelectionErrorCase> cases = {
        {selecting("w0:4", std::nullopt),
         "--include: GPU 4 of 'w0' is beyond its slots=4 in the hostfile (GPUs 0-3)"},
        {selecting("w0:0@w2:1,2", std::nullopt),
         "--include: GPU 2 of 'w2' is beyond its slots=2 in the hostfile (GPUs 0-1)"},
        {selecting(std::nullopt, "w2:2"),
         "--exclude: GPU 2 of 'w2' is beyond its slots=2 in the hostfile (GPUs 0-1)"},
        {selecting("w9:0", std::nullopt), "--include: host 'w9' is not in the hostfile"},
        {selecting(std::nullopt, "w9:0"), "--exclude: host 'w9' is not in the hostfile"},
        {selecting("w3@w0:1", std::nullopt),
         "--include: 'w3' has no slots= in the hostfile, so its GPUs are unknown (GPU indices "
         "elsewhere in the selection: every node runs one process per GPU) (give it slots=N, or "
         "name its GPUs: 'w3:0,1')"},
        {selecting(std::nullopt, "w3:0"),
         "--exclude: 'w3' has no slots= in the hostfile, so the GPUs left after excluding some "
         "are unknown (give it slots=N, or name its GPUs: 'w3:0,1')"},
    };
    for (const GpuSelectionErrorCase& c : cases) {
        EXPECT_EQ(test::usage_message([&] { select(c.options); }), c.message);
    }
    EXPECT_EQ(test::usage_message([&] {
                  select(selecting(std::nullopt, "w0:0,1@w1"), "w0 slots=2\nw1 slots=1\n");
              }),
              "--exclude: no host of the hostfile is left");
}

// (--launcher slurm refuses GPU indices too: its row's check, tests/unit/engines.)
TEST(GpuSelection, NprocPerNodeCannotTakeGpuIndices) {
    Options nproc = selecting("w0:0", std::nullopt);
    nproc.nproc_per_node = test::nproc("2");
    EXPECT_EQ(test::usage_message([&] { validate_options(nproc); }),
              "--nproc_per_node cannot be used with GPU indices in --include (each node runs one "
              "process per GPU it selects)");
    // Hosts only: both as before.
    Options hosts = selecting("w0@w1", std::nullopt);
    hosts.nproc_per_node = test::nproc("2");
    validate_options(hosts);
}

Context gpu_context(std::vector<std::string> environment = {"PATH=/bin"}) {
    Context context;
    context.environment = std::move(environment);
    context.working_directory = "/work/job";
    context.hostfile_text = hostfile;
    context.find_local = test::find_local_by([](std::string_view) { return false; });
    return context;
}

std::string value_of(const NodeCommand& node, std::string_view name) {
    for (const auto& [variable, value] : node.flag_environment) {
        if (variable == name) {
            return value;
        }
    }
    return "(unset)";
}

// Each node runs one process per selected GPU and sees only those: torchrun's world size is the
// sum (the e2e test runs the real torchrun).
TEST(GpuSelection, EachNodeGetsItsDevicesAndItsProcessCount) {
    Plan plan = test::plan_of(selecting("w0:0,1@w1:3@w2", std::nullopt), gpu_context());
    ASSERT_EQ(plan.nodes.size(), 3u);
    EXPECT_EQ(plan.nodes[0].argv[1], "--nproc_per_node=2");
    EXPECT_EQ(plan.nodes[1].argv[1], "--nproc_per_node=1");
    EXPECT_EQ(plan.nodes[2].argv[1], "--nproc_per_node=2");
    EXPECT_EQ(plan.nodes[0].argv[2], "--nnodes=3");
    EXPECT_EQ(value_of(plan.nodes[0], "CUDA_VISIBLE_DEVICES"), "0,1");
    EXPECT_EQ(value_of(plan.nodes[1], "CUDA_VISIBLE_DEVICES"), "3");
    EXPECT_EQ(value_of(plan.nodes[2], "CUDA_VISIBLE_DEVICES"), "0,1");
    EXPECT_EQ(plan.nodes[1].gpus, (std::optional<std::vector<int>>{{3}}));
    EXPECT_TRUE(plan.warnings.empty());
}

TEST(GpuSelection, HostsOnlyChangeNeitherDevicesNorCounts) {
    Options options = selecting("w0@w1", std::nullopt);
    Plan plan = test::plan_of(options, gpu_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.nodes[1].argv[1], "--nproc_per_node=4");
    EXPECT_EQ(value_of(plan.nodes[1], "CUDA_VISIBLE_DEVICES"), "(unset)");
    EXPECT_EQ(plan.nodes[1].gpus, std::nullopt);
}

// DeepSpeed ignores the launcher's CUDA_VISIBLE_DEVICES once --include/--exclude select GPUs, and
// says so; without GPU indices it is passed on like any variable.
TEST(GpuSelection, TheLaunchersCudaVisibleDevicesGivesWay) {
    Plan plan = test::plan_of(selecting(std::nullopt, "w1:0@w3"),
                              gpu_context({"PATH=/bin", "CUDA_VISIBLE_DEVICES=5,6"}));
    ASSERT_EQ(plan.nodes.size(), 3u);
    EXPECT_EQ(value_of(plan.nodes[1], "CUDA_VISIBLE_DEVICES"), "1,2,3");
    EXPECT_EQ(plan.warnings,
              (std::vector<std::string>{
                  "the launcher's CUDA_VISIBLE_DEVICES=5,6 is not passed on: each node's GPUs "
                  "are those --include or --exclude select (indices of the node's own GPUs)"}));
    Plan hosts = test::plan_of(selecting("w0@w1", std::nullopt),
                               gpu_context({"PATH=/bin", "CUDA_VISIBLE_DEVICES=5,6"}));
    EXPECT_TRUE(hosts.warnings.empty());
}

TEST(GpuSelection, OldPytorchCannotRunDifferentCountsPerNode) {
    Context old = gpu_context();
    old.torch_version = "1.8.1";
    old.python = "/usr/bin/python3";
    EXPECT_EQ(
        test::usage_message([&] { test::plan_of(selecting("w0:0,1@w1:0", std::nullopt), old); }),
        "a launch whose nodes run different numbers of processes ('w0' 2, 'w1' 1) needs "
        "PyTorch 1.9 or newer (found 1.8.1: python -m torch.distributed.launch)");
    Plan same = test::plan_of(selecting("w0:0@w1:2", std::nullopt), old);
    EXPECT_EQ(same.nodes[1].argv[3], "--nproc_per_node=1");
}

} // namespace
} // namespace colossalai::run
