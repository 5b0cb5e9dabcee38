#include "usage_message.hpp"

#include "colossalai/run/hosts.hpp"
#include "colossalai/run/nproc.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using test::usage_message;

std::vector<std::optional<int>> slots(const std::vector<Host>& hosts) {
    std::vector<std::optional<int>> result;
    for (const Host& host : hosts) {
        result.push_back(host.slots);
    }
    return result;
}

TEST(HostfileSlots, ReadsSlotsAndMaxSlotsWithComments) {
    std::vector<Host> hosts = parse_hostfile("# DeepSpeed style\n"
                                             "worker-1 slots=4   # four GPUs\n"
                                             "worker-2\tslots=4\n"
                                             "n[1-2] max_slots=8\n"
                                             "m1 slots=2 max_slots=8\n"
                                             "plain\n",
                                             "hosts");
    ASSERT_EQ(hosts.size(), 6U);
    EXPECT_EQ(hosts[2].name, "n1");
    EXPECT_EQ(slots(hosts), (std::vector<std::optional<int>>{4, 4, 8, 8, 2, std::nullopt}));
}

TEST(HostfileSlots, RefusesBadAttributesNamingTheLine) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"a\nb c\n",
         "hosts:2: 'c' after the host: expected slots=N or max_slots=N (one host per line)"},
        {"a slots=0\n", "hosts:1: 'slots=0': slots must be a positive integer"},
        {"a slots=x\n", "hosts:1: 'slots=x': slots must be a positive integer"},
        {"a slots=\n", "hosts:1: 'slots=': slots must be a positive integer"},
        {"a max_slots=-1\n", "hosts:1: 'max_slots=-1': max_slots must be a positive integer"},
        {"a slots=99999999999\n", "hosts:1: 'slots=99999999999': slots must be a positive integer"},
        {"a slots=2 slots=2\n", "hosts:1: slots is given twice"},
        {"a slots=8 max_slots=4\n", "hosts:1: slots=8 is more than max_slots=4"},
        {"a gpus=8\n", "hosts:1: 'gpus=8' after the host: expected slots=N or max_slots=N (one "
                       "host per line)"},
        {"a slots = 8\n", "hosts:1: 'slots' after the host: expected slots=N or max_slots=N "
                          "(one host per line)"},
        {"-oProxyCommand=touch /tmp/x\n",
         "hosts:1: invalid host '-oProxyCommand=touch': starts with '-'"},
    };
    for (const auto& [text, message] : cases) {
        EXPECT_EQ(usage_message([&, &text = text] { parse_hostfile(text, "hosts"); }), message)
            << text;
    }
}

std::vector<Host> with_slots(std::vector<std::optional<int>> counts) {
    std::vector<Host> hosts;
    for (size_t i = 0; i < counts.size(); ++i) {
        Host host = parse_host("n" + std::to_string(i + 1), "test");
        host.slots = counts[i];
        hosts.push_back(host);
    }
    return hosts;
}

// `option` as typed: "4", "gpu".
std::string resolve(const std::optional<std::string>& option,
                    std::vector<std::optional<int>> counts) {
    std::optional<NprocPerNode> parsed;
    if (option) {
        parsed = parse_nproc_per_node(*option);
        EXPECT_TRUE(parsed.has_value()) << *option;
    }
    return to_string(
        resolve_nproc_per_node(parsed, with_slots(std::move(counts)), "the hostfile hosts"));
}

TEST(NprocPerNode, TheOptionWinsWhenSlotsAgreeOrAreAbsent) {
    EXPECT_EQ(resolve("4", {std::nullopt, std::nullopt}), "4");
    EXPECT_EQ(resolve("4", {4, 4}), "4");
    EXPECT_EQ(resolve("4", {4, std::nullopt}), "4");
}

TEST(NprocPerNode, SlotsGiveItWhenEveryHostAgrees) {
    EXPECT_EQ(resolve(std::nullopt, {8, 8, 8}), "8");
    EXPECT_EQ(resolve(std::nullopt, {1}), "1");
}

TEST(NprocPerNode, SymbolicValuesPassThroughToTorchrun) {
    EXPECT_EQ(resolve("gpu", {std::nullopt}), "gpu");
    EXPECT_EQ(resolve("auto", {std::nullopt, std::nullopt}), "auto");
    EXPECT_EQ(resolve("cpu", {std::nullopt}), "cpu");
}

TEST(NprocPerNode, ParsesACountOrASymbolicValue) {
    EXPECT_EQ(parse_nproc_per_node("4"), NprocPerNode(4));
    EXPECT_EQ(parse_nproc_per_node("08"), NprocPerNode(8));
    EXPECT_EQ(parse_nproc_per_node("auto"), NprocPerNode(SymbolicNproc::automatic));
    EXPECT_EQ(parse_nproc_per_node("cpu"), NprocPerNode(SymbolicNproc::cpu));
    EXPECT_EQ(parse_nproc_per_node("gpu"), NprocPerNode(SymbolicNproc::gpu));
    for (const char* text : {"GPU", "", "0", "-2", "two", "2.5", "99999999999", " 4"}) {
        EXPECT_EQ(parse_nproc_per_node(text), std::nullopt) << text;
    }
    EXPECT_EQ(to_string(NprocPerNode(12)), "12");
    EXPECT_EQ(to_string(NprocPerNode(SymbolicNproc::automatic)), "auto");
}

TEST(NprocPerNode, ConflictsAreUsageErrorsSayingWhy) {
    EXPECT_EQ(usage_message([] {
                  resolve(std::nullopt, {4, 8});
              }),
              "slots differ in the hostfile hosts: 'n1' has slots=4, 'n2' has slots=8; torchrun "
              "runs the same number of processes on every node (give --nproc_per_node, or make "
              "them equal)");
    EXPECT_EQ(usage_message([] {
                  resolve("4", {4, 8});
              }),
              "slots=8 for 'n2' in the hostfile hosts contradicts --nproc_per_node 4 (torchrun "
              "runs the same number of processes on every node)");
    EXPECT_EQ(usage_message([] {
                  resolve(std::nullopt, {4, std::nullopt});
              }),
              "--nproc_per_node is required: 'n2' in the hostfile hosts has no slots= while "
              "'n1' has slots=4");
    EXPECT_EQ(usage_message([] { resolve(std::nullopt, {std::nullopt}); }),
              "--nproc_per_node is required (processes per node, usually the number of GPUs)");
    EXPECT_EQ(usage_message([] {
                  resolve("gpu", {std::nullopt, 2});
              }),
              "--nproc_per_node gpu and slots=2 for 'n2' in the hostfile hosts: keep one");
}

// What each node's preflight asks: the selected indices win; a count asks one GPU per process; only
// `gpu` of the symbolic values asks any.
TEST(GpusNeeded, FollowsTheSelectionElseTheProcessCount) {
    job::GpusNeeded selected = gpus_needed(std::vector<int>{3, 1}, std::nullopt);
    ASSERT_TRUE(std::holds_alternative<job::GpuIndices>(selected));
    EXPECT_EQ(std::get<job::GpuIndices>(selected).indices, (std::vector<int>{3, 1}));
    job::GpusNeeded counted = gpus_needed(std::nullopt, NprocPerNode(4));
    ASSERT_TRUE(std::holds_alternative<job::GpuPerProcess>(counted));
    EXPECT_EQ(std::get<job::GpuPerProcess>(counted).processes, 4);
    EXPECT_TRUE(std::holds_alternative<job::SomeGpu>(
        gpus_needed(std::nullopt, NprocPerNode(SymbolicNproc::gpu))));
    for (SymbolicNproc none : {SymbolicNproc::automatic, SymbolicNproc::cpu}) {
        EXPECT_TRUE(std::holds_alternative<job::NoGpus>(gpus_needed(std::nullopt, none)));
    }
    EXPECT_TRUE(std::holds_alternative<job::NoGpus>(gpus_needed(std::nullopt, std::nullopt)));
}

} // namespace
} // namespace colossalai::run
