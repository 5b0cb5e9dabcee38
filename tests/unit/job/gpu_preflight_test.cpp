// The GPU preflight (issue #26): what a node's GPU count must be for the GPUs a launch asks,
// the word that tells the node's shell, what a shortage says, and the shell lines and the local
// check against the fake nvidia-smi (tests/fixtures/fake_nvidia_smi.sh) on the node's PATH.

#include "fake_gpus.hpp"
#include "files.hpp"
#include "process.hpp"

#include "colossalai/job/local_preflight.hpp"
#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::job {
namespace {

using test::read_file;
using test::TempDir;

TEST(GpusNeeded, ACountAsksThatManyOnlyOfANodeWithGpus) {
    GpusNeeded four = GpuPerProcess{4};
    EXPECT_TRUE(gpus_suffice(four, 0)); // a CPU-only node runs a CPU-only job
    EXPECT_FALSE(gpus_suffice(four, 1));
    EXPECT_FALSE(gpus_suffice(four, 3));
    EXPECT_TRUE(gpus_suffice(four, 4));
    EXPECT_TRUE(gpus_suffice(four, 8));
    EXPECT_EQ(gpu_check_word(four), "4");
}

TEST(GpusNeeded, IndicesAskMoreThanTheHighestEvenOfANodeWithoutGpus) {
    GpusNeeded indices = GpuIndices{{3, 0}};
    EXPECT_FALSE(gpus_suffice(indices, 0));
    EXPECT_FALSE(gpus_suffice(indices, 3));
    EXPECT_TRUE(gpus_suffice(indices, 4));
    EXPECT_EQ(gpu_check_word(indices), "4!");
    EXPECT_EQ(gpu_check_word(GpuIndices{{0}}), "1!");
}

TEST(GpusNeeded, GpuAsksOneAndNothingAsksNothing) {
    EXPECT_FALSE(gpus_suffice(SomeGpu{}, 0));
    EXPECT_TRUE(gpus_suffice(SomeGpu{}, 1));
    EXPECT_EQ(gpu_check_word(SomeGpu{}), "1!");
    EXPECT_TRUE(gpus_suffice(NoGpus{}, 0));
    EXPECT_EQ(gpu_check_word(NoGpus{}), ""); // the node runs no probe at all
}

TEST(GpuShortage, SaysWhatWasAskedWhatWasFoundAndHow) {
    auto shortage = [](GpusNeeded needed, int found, GpuProbe probe) {
        return describe(
            PreflightFailure{PreflightCheck::gpus, "", GpuShortage{needed, found, probe}});
    };
    EXPECT_EQ(shortage(GpuIndices{{0, 3}}, 1, GpuProbe::nvidia_smi),
              "2 GPUs asked (indices 0,3), 1 found (nvidia-smi -L); GPU indices are the node's "
              "own, from 0");
    EXPECT_EQ(shortage(GpuIndices{{2}}, 2, GpuProbe::driver_proc),
              "1 GPU asked (index 2), 2 found (/proc/driver/nvidia/gpus); GPU indices are the "
              "node's own, from 0");
    EXPECT_EQ(shortage(GpuPerProcess{8}, 7, GpuProbe::nvidia_smi),
              "8 GPUs asked (8 processes, one GPU each), 7 found (nvidia-smi -L); give "
              "--nproc_per_node 7 or fewer, or pick the node's GPUs with --include HOST:0,1");
    EXPECT_EQ(describe(PreflightFailure{
                  PreflightCheck::gpus, "",
                  GpuShortage{GpuPerProcess{2}, std::nullopt, GpuProbe::nvidia_smi}}),
              "2 GPUs asked (2 processes, one GPU each), none counted (nvidia-smi -L did not "
              "finish)");
    EXPECT_EQ(shortage(SomeGpu{}, 0, GpuProbe::none),
              "1 GPU asked (--nproc_per_node gpu), 0 found (no nvidia-smi, no "
              "/proc/driver/nvidia/gpus); a CPU-only job takes --nproc_per_node cpu or a number");
}

TEST(GpuShortage, IsParsedFromTheNodesLineWithWhatTheCommandAsked) {
    NodeCommand command;
    command.preflight.gpus = GpuIndices{{0, 3}};
    std::optional<PreflightFailure> failure = parse_failed_check("gpus 1 smi", command);
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->check, PreflightCheck::gpus);
    ASSERT_TRUE(failure->gpus.has_value());
    EXPECT_EQ(failure->gpus->found, 1);
    EXPECT_EQ(failure->gpus->probe, GpuProbe::nvidia_smi);
    EXPECT_EQ(describe(*failure), "2 GPUs asked (indices 0,3), 1 found (nvidia-smi -L); GPU "
                                  "indices are the node's own, from 0");
    ASSERT_TRUE(parse_failed_check("gpus 0 proc", command).has_value());
    EXPECT_EQ(parse_failed_check("gpus 0 proc", command)->gpus->probe, GpuProbe::driver_proc);
    EXPECT_EQ(parse_failed_check("gpus 0 none", command)->gpus->probe, GpuProbe::none);
    // The count did not finish.
    std::optional<PreflightFailure> unfinished = parse_failed_check("gpus - smi", command);
    ASSERT_TRUE(unfinished.has_value());
    EXPECT_EQ(unfinished->gpus->found, std::nullopt);
    for (const char* bad :
         {"gpus", "gpus ", "gpus 1", "gpus 1 ", "gpus x smi", "gpus -1 smi", "gpus 1 smi ",
          "gpus 1 nvidia", "gpus 1smi", "gpus -1 smi", "gpus - ", "gpus --smi"}) {
        EXPECT_EQ(parse_failed_check(bad, command), std::nullopt) << bad;
    }
}

TEST(GpuCount, CountsTheGpuLinesOfNvidiaSmiList) {
    EXPECT_EQ(count_gpu_lines(""), 0);
    EXPECT_EQ(count_gpu_lines("No devices were found\n"), 0);
    EXPECT_EQ(count_gpu_lines("GPU 0: NVIDIA A100 (UUID: GPU-1)\n"
                              "  MIG 1g.5gb Device 0: (UUID: MIG-1)\n"
                              "GPU 1: NVIDIA A100 (UUID: GPU-2)"),
              2);
}

// A node's tools: the fake nvidia-smi with `gpus` GPUs (nullopt: no nvidia-smi at all).
class GpuProbeOnANode : public ::testing::Test {
protected:
    void install(std::optional<int> gpus) {
        if (gpus) {
            test::install_fake_nvidia_smi(m_bin.path(), *gpus);
        }
    }
    std::string path() const { return m_bin.path().string() + ":/usr/bin:/bin"; }
    bool probed() const { return test::fake_nvidia_smi_ran(m_bin.path()); }

    // The preflight's lines under /bin/sh, the GPU word `word`: what the node says.
    test::RunResult run_shell(const std::string& word) const {
        std::string script = "fail() { printf '%s\\n' \"$1\"; exit 3; }\n"
                             "d=/ c=sh m= i= u=$1\n" +
                             preflight_shell({.fail = "fail",
                                              .directory = "d",
                                              .command = "c",
                                              .master = "m",
                                              .interfaces = "i",
                                              .gpus = "u"}) +
                             "echo ready\n";
        test::RunOptions options;
        options.env = {{"PATH", path()}};
        return test::run({"/bin/sh", "-c", script, "sh", word}, options);
    }

    std::optional<PreflightFailure> run_local(GpusNeeded needed) const {
        NodeCommand command;
        command.working_directory = "/";
        command.argv = {"sh"};
        command.preflight.gpus = std::move(needed);
        return local_preflight(command, {"PATH=" + path()});
    }

    TempDir m_bin{"gpu-preflight"};
};

TEST_F(GpuProbeOnANode, TheShellStopsANodeWithTooFewGpus) {
    install(2);
    test::RunResult refused = run_shell("4");
    EXPECT_EQ(refused.exit_code, 3) << test::describe(refused);
    EXPECT_EQ(refused.out, "gpus 2 smi\n");
    EXPECT_EQ(read_file(m_bin / "calls"), "-L\n"); // one probe, nothing else asked of it
    test::RunResult indices = run_shell("3!");
    EXPECT_EQ(indices.out, "gpus 2 smi\n") << test::describe(indices);
    test::RunResult enough = run_shell("2");
    EXPECT_EQ(enough.exit_code, 0) << test::describe(enough);
    EXPECT_EQ(enough.out, "ready\n");
}

// The launch stopped while the node counted: an nvidia-smi killed by a signal leaves no count,
// which is no pass (nor sh's own complaint about a number).
TEST_F(GpuProbeOnANode, AnNvidiaSmiKilledLeavesNoCount) {
    install(0);
    test::kill_fake_nvidia_smi(m_bin.path());
    test::RunResult result = run_shell("2");
    EXPECT_EQ(result.out, "gpus - smi\n") << test::describe(result);
    EXPECT_EQ(result.err.find("Illegal number"), std::string::npos) << result.err;
    std::optional<PreflightFailure> failure = run_local(GpuPerProcess{2});
    ASSERT_TRUE(failure.has_value());
    ASSERT_TRUE(failure->gpus.has_value());
    EXPECT_EQ(failure->gpus->found, std::nullopt);
}

TEST_F(GpuProbeOnANode, TheShellPassesACpuOnlyNodeUnlessGpusAreNamed) {
    install(0);
    EXPECT_EQ(run_shell("4").out, "ready\n");
    EXPECT_EQ(run_shell("1!").out, "gpus 0 smi\n");
}

TEST_F(GpuProbeOnANode, TheShellRunsNoProbeWhenNoGpuIsAsked) {
    install(0);
    test::RunResult result = run_shell("");
    EXPECT_EQ(result.out, "ready\n") << test::describe(result);
    EXPECT_FALSE(probed());
}

TEST_F(GpuProbeOnANode, WithoutNvidiaSmiTheDriversEntriesCount) {
    if (std::filesystem::exists("/proc/driver/nvidia/gpus") ||
        std::filesystem::exists("/usr/bin/nvidia-smi") ||
        std::filesystem::exists("/bin/nvidia-smi")) {
        GTEST_SKIP() << "this machine has NVIDIA's driver";
    }
    install(std::nullopt);
    EXPECT_EQ(run_shell("1!").out, "gpus 0 none\n");
    EXPECT_EQ(run_shell("8").out, "ready\n");
    std::optional<PreflightFailure> failure = run_local(SomeGpu{});
    ASSERT_TRUE(failure.has_value());
    ASSERT_TRUE(failure->gpus.has_value());
    EXPECT_EQ(failure->gpus->probe, GpuProbe::none);
}

TEST_F(GpuProbeOnANode, TheLocalCheckCountsAsTheShellDoes) {
    install(1);
    std::optional<PreflightFailure> failure = run_local(GpuIndices{{0, 3}});
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->check, PreflightCheck::gpus);
    EXPECT_EQ(describe(*failure), "2 GPUs asked (indices 0,3), 1 found (nvidia-smi -L); GPU "
                                  "indices are the node's own, from 0");
    EXPECT_EQ(run_local(GpuPerProcess{1}), std::nullopt);
    EXPECT_TRUE(run_local(GpuPerProcess{2}).has_value());
}

TEST_F(GpuProbeOnANode, TheLocalCheckRunsNoProbeWhenNoGpuIsAsked) {
    install(0);
    EXPECT_EQ(run_local(NoGpus{}), std::nullopt);
    EXPECT_FALSE(probed());
    EXPECT_EQ(run_local(GpuPerProcess{4}), std::nullopt); // a CPU-only node
    EXPECT_TRUE(probed());
}

} // namespace
} // namespace colossalai::job
