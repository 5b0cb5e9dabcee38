#include "case_name.hpp"
#include "sample_facts.hpp"

#include "colossalai/check/rules.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

using Text = std::optional<std::string>;
using Mark = std::optional<bool>;
constexpr std::nullopt_t na = std::nullopt;

struct RuleCase {
    const char* name;
    Text torch;
    Text torch_cuda;
    bool cpu_only;
    Text system_cuda;
    Text aot_torch;
    Text aot_cuda;
    Text driver_cuda;
    Mark torch_match;
    Mark system_torch_cuda;
    Mark system_colossalai_cuda;
    Mark driver_ok;
    int exit_status;
};

class Evaluate : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Evaluate, AppliesTheCompatibilityRules) {
    const RuleCase& c = GetParam();
    Facts facts;
    facts.torch_version = c.torch;
    facts.torch_cuda = c.torch_cuda;
    facts.torch_cpu_only = c.cpu_only;
    facts.system_cuda = c.system_cuda;
    facts.aot_torch = c.aot_torch;
    facts.aot_cuda = c.aot_cuda;
    facts.driver_cuda = c.driver_cuda;
    Checks checks = evaluate(facts);
    EXPECT_EQ(checks.torch_version_match, c.torch_match) << c.name;
    EXPECT_EQ(checks.system_torch_cuda_match, c.system_torch_cuda) << c.name;
    EXPECT_EQ(checks.system_colossalai_cuda_match, c.system_colossalai_cuda) << c.name;
    EXPECT_EQ(checks.driver_supports_torch_cuda, c.driver_ok) << c.name;
    EXPECT_EQ(exit_status(checks), c.exit_status) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Evaluate,
    ::testing::Values(
        // name, torch, torch cuda, cpu only, system cuda, aot torch, aot cuda, driver,
        //   -> torch match, sys/torch cuda, sys/colossalai cuda, driver ok, exit
        RuleCase{"all known and equal", "2.1.0", "12.1", false, "12.1", "2.1", "12.1", "12.4", true,
                 true, true, true, 0},
        RuleCase{"nothing known", na, na, false, na, na, na, na, na, na, na, na, 0},
        RuleCase{"patch ignored", "2.1.5", "12.1", false, "12.1.105", "2.1.0", "12.1", "12.1", true,
                 true, true, true, 0},
        RuleCase{"minor differs", "2.2.0", "12.1", false, "12.4", "2.1", "12.4", "12.4", false,
                 false, true, true, 1},
        RuleCase{"12.10 is not 12.1", "2.1.0", "12.1", false, "12.10", na, "12.1", "12.10", na,
                 false, false, true, 1},
        RuleCase{"two-component versions", "1.13", "11.7", false, "11.7", "1.13", "11.7", "11.7",
                 true, true, true, true, 0},
        RuleCase{"alpha with git label", "1.13.0a0+gitabc", "11.7", false, "11.7", "1.13", na, na,
                 true, true, na, na, 0},
        RuleCase{"major differs", "2.1.0", "11.8", false, "12.8", "1.1", "11.8", "12.8", false,
                 false, false, true, 1},
        RuleCase{"no AOT versions", "2.1.0", "12.1", false, "12.1", na, na, na, na, true, na, na,
                 0},
        RuleCase{"no system CUDA", "2.1.0", "12.1", false, na, "2.1", "12.1", "12.2", true, na, na,
                 true, 0},
        RuleCase{"CPU-only PyTorch", "1.13.0a0", na, true, "13.0", na, na, "13.0", na, false, na,
                 na, 1},
        RuleCase{"CPU-only PyTorch, no system CUDA", "2.2.1", na, true, na, na, na, na, na, na, na,
                 na, 0},
        RuleCase{"PyTorch not found", na, na, false, "12.4", "2.1", "12.4", "12.4", na, na, true,
                 na, 0},
        RuleCase{"driver too old", "2.1.0", "12.1", false, "12.1", na, na, "11.8", na, true, na,
                 false, 1},
        RuleCase{"driver older minor", "2.4.0", "12.4", false, "12.4", na, na, "12.2", na, true, na,
                 false, 1},
        RuleCase{"driver newer major", "2.4.0", "12.4", false, "12.4", na, na, "13.0", na, true, na,
                 true, 0},
        RuleCase{"driver 12.10 is newer than 12.9", "2.9.0", "12.9", false, "12.9", na, na, "12.10",
                 na, true, na, true, 0},
        RuleCase{"garbage is unknown", "abc", "None", false, "twelve", "x.y", "", "?", na, na, na,
                 na, 0},
        RuleCase{"garbage system CUDA with CPU PyTorch", "2.1.0", na, true, "garbage", na, na, na,
                 na, na, na, na, 0}),
    test::CaseName());

TEST(ExitStatus, OneForAnyFalse) {
    EXPECT_EQ(exit_status(Checks{}), 0);
    EXPECT_EQ(exit_status(sample::checks(true, true, true, true)), 0);
    EXPECT_EQ(exit_status(sample::checks(na, na, na, false)), 1);
    EXPECT_EQ(exit_status(sample::checks(false, na, na, na)), 1);
    EXPECT_EQ(exit_status(sample::checks(true, false, true, true)), 1);
    EXPECT_EQ(exit_status(sample::checks(true, true, false, na)), 1);
}

TEST(ExitStatus, NewChecksCountButTheShmWarningDoesNot) {
    Checks gpus;
    gpus.torch_cuda_supports_gpus = false;
    EXPECT_EQ(exit_status(gpus), 1);
    Checks jit;
    jit.jit_ninja = false;
    EXPECT_EQ(exit_status(jit), 1);
    Checks shm;
    shm.shm_sufficient = false;
    EXPECT_EQ(exit_status(shm), 0);
}

Facts with_gpus(const char* torch_cuda, std::vector<Gpu> gpus) {
    Facts facts;
    facts.torch_version = "2.5.0";
    facts.torch_cuda = torch_cuda;
    facts.gpus = std::move(gpus);
    return facts;
}

TEST(Evaluate, EveryGpuMustBeOneTorchsCudaCanRun) {
    Gpu h100{"NVIDIA H100", "9.0"};
    Gpu rtx5090{"NVIDIA GeForce RTX 5090", "12.0"};
    Gpu unknown{"Some GPU", std::nullopt};
    EXPECT_EQ(evaluate(with_gpus("12.4", {h100, h100})).torch_cuda_supports_gpus, true);
    EXPECT_EQ(evaluate(with_gpus("12.4", {h100, rtx5090})).torch_cuda_supports_gpus, false);
    EXPECT_EQ(evaluate(with_gpus("12.8", {h100, rtx5090})).torch_cuda_supports_gpus, true);
    // One unknown GPU leaves it open; a known unsupported one still fails.
    EXPECT_EQ(evaluate(with_gpus("12.4", {h100, unknown})).torch_cuda_supports_gpus, na);
    EXPECT_EQ(evaluate(with_gpus("12.4", {unknown, rtx5090})).torch_cuda_supports_gpus, false);
    EXPECT_EQ(evaluate(with_gpus("12.4", {})).torch_cuda_supports_gpus, na);
    Facts cpu = with_gpus("12.4", {h100});
    cpu.torch_cuda = std::nullopt;
    EXPECT_EQ(evaluate(cpu).torch_cuda_supports_gpus, na);
}

TEST(Evaluate, RuntimeBuildPrerequisitesOnlyWithoutAot) {
    Facts facts;
    facts.torch_cuda = "12.1";
    facts.system_cuda = "12.1";
    facts.ninja = "/usr/bin/ninja";
    facts.aot_extension = true;
    Checks aot = evaluate(facts);
    EXPECT_EQ(aot.jit_ninja, na);
    EXPECT_EQ(aot.jit_compiler, na);
    EXPECT_EQ(aot.jit_nvcc_matches_torch, na);
    facts.aot_extension = std::nullopt; // not installed: nothing to build
    EXPECT_EQ(evaluate(facts).jit_ninja, na);

    facts.aot_extension = false;
    Checks jit = evaluate(facts);
    EXPECT_EQ(jit.jit_ninja, true);
    EXPECT_EQ(jit.jit_compiler, false);
    EXPECT_EQ(jit.jit_nvcc_matches_torch, true);
    facts.system_cuda = std::nullopt;
    EXPECT_EQ(evaluate(facts).jit_nvcc_matches_torch, false); // no nvcc at all
    facts.system_cuda = "12.4";
    EXPECT_EQ(evaluate(facts).jit_nvcc_matches_torch, false);
    facts.torch_cuda = std::nullopt;
    EXPECT_EQ(evaluate(facts).jit_nvcc_matches_torch, na);
}

TEST(Evaluate, SharedMemoryWarnsUnderAGibWithSeveralGpus) {
    Facts facts;
    facts.shm_bytes = 64ULL << 20;
    EXPECT_EQ(evaluate(facts).shm_sufficient, na); // GPUs unknown
    facts.gpus = std::vector<Gpu>{{"A", "8.0"}};
    EXPECT_EQ(evaluate(facts).shm_sufficient, true); // one GPU: no NCCL peer traffic
    facts.gpus->push_back({"A", "8.0"});
    EXPECT_EQ(evaluate(facts).shm_sufficient, false);
    facts.shm_bytes = min_shm_bytes;
    EXPECT_EQ(evaluate(facts).shm_sufficient, true);
    facts.shm_bytes = std::nullopt;
    EXPECT_EQ(evaluate(facts).shm_sufficient, na);
}

std::vector<std::string> advice_texts(const Facts& facts) {
    std::vector<std::string> texts;
    for (const Advice& advice : advise(facts, evaluate(facts))) {
        texts.push_back(std::string(section_name(advice.section)) + ": " + advice.text);
    }
    return texts;
}

TEST(Advise, NothingWrongNothingToSay) {
    Facts facts = with_gpus("12.1", {{"NVIDIA H100", "9.0"}});
    facts.python = "/venv/bin/python3";
    facts.system_cuda = "12.1";
    facts.cuda_home = "/usr/local/cuda";
    facts.driver_cuda = "12.4";
    facts.shm_bytes = 64ULL << 20; // one GPU: fine
    EXPECT_EQ(advice_texts(facts), std::vector<std::string>{});
}

TEST(Advise, SystemCudaAgainstPyTorchSaysWhichBuildOrToolkit) {
    Facts facts = with_gpus("12.1", {});
    facts.python = "/venv/bin/python3";
    facts.system_cuda = "11.8";
    facts.cuda_home = "/usr/local/cuda";
    EXPECT_EQ(advice_texts(facts),
              std::vector<std::string>{
                  "compatibility: The system CUDA 11.8 is not PyTorch's CUDA 12.1: install a "
                  "PyTorch built for CUDA 11.8 (pip install torch --index-url "
                  "https://download.pytorch.org/whl/cu118), or install CUDA 12.1 and set "
                  "CUDA_HOME to it."});
    facts.torch_cuda = std::nullopt;
    facts.torch_cpu_only = true;
    EXPECT_EQ(advice_texts(facts),
              std::vector<std::string>{
                  "compatibility: PyTorch 2.5.0 is a CPU-only build: install one built for the "
                  "system CUDA 11.8: pip install torch --index-url "
                  "https://download.pytorch.org/whl/cu118."});
}

TEST(Advise, OneLinePerProblemInReportOrder) {
    Facts facts;
    facts.torch_version = "2.1.0";
    facts.torch_cuda = "12.1";
    facts.cuda_home = "/opt/cuda"; // without a working nvcc
    facts.aot_extension = false;
    facts.cxx = "/usr/bin/c++";
    facts.driver_cuda = "11.8";
    facts.gpus = std::vector<Gpu>{{"NVIDIA GeForce RTX 5090", "12.0"},
                                  {"NVIDIA GeForce RTX 5090", "12.0"},
                                  {"Tesla K80", "3.7"}};
    facts.shm_bytes = 64ULL << 20;
    EXPECT_EQ(
        advice_texts(facts),
        (std::vector<std::string>{
            "environment: No Python found: activate the training environment or pass --python "
            "PATH.",
            "environment: No working nvcc in the CUDA home /opt/cuda: set CUDA_HOME to the CUDA "
            "toolkit's directory (the one holding bin/nvcc), CUDA 12.1 for this PyTorch.",
            "environment: /dev/shm has only 64 MiB for 3 GPUs: give it at least 1 GiB (docker "
            "run --shm-size=8g or --ipc=host; Kubernetes: an emptyDir with medium: Memory "
            "mounted at /dev/shm).",
            "aot: Install ninja (pip install ninja) to build the kernels at run time, or install "
            "them ahead of time: BUILD_EXT=1 pip install --no-cache-dir --force-reinstall "
            "colossalai.",
            "aot: Install CUDA 12.1 and set CUDA_HOME to it (the directory holding bin/nvcc): "
            "the run-time build of the kernels needs an nvcc for PyTorch's CUDA 12.1.",
            "compatibility: The NVIDIA driver supports CUDA up to 11.8, PyTorch needs 12.1: "
            "update the driver to one for CUDA 12.1 or newer, or install a PyTorch built for "
            "CUDA 11.8 or older.",
            "compatibility: GPU 0, 1 (NVIDIA GeForce RTX 5090, compute capability 12.0) needs "
            "CUDA 12.8 or newer, PyTorch has CUDA 12.1: install a PyTorch built for CUDA 12.8 or "
            "newer, e.g. pip install torch --index-url https://download.pytorch.org/whl/cu128.",
            "compatibility: GPU 2 (Tesla K80, compute capability 3.7) is not supported by CUDA "
            "12.0 and newer, PyTorch has CUDA 12.1: install a PyTorch built for an older CUDA.",
        }));
}

TEST(Advise, AotBuildAgainstThisEnvironment) {
    Facts facts;
    facts.python = "/venv/bin/python3";
    facts.torch_version = "2.2.0";
    facts.torch_cuda = "12.1";
    facts.system_cuda = "12.1";
    facts.cuda_home = "/usr/local/cuda";
    facts.aot_extension = true;
    facts.aot_torch = "2.1";
    facts.aot_cuda = "11.8";
    EXPECT_EQ(advice_texts(facts),
              (std::vector<std::string>{
                  "compatibility: Colossal-AI's kernels were built for PyTorch 2.1, this is "
                  "PyTorch 2.2.0: install PyTorch 2.1, or rebuild the kernels for this one: "
                  "BUILD_EXT=1 pip install --no-cache-dir --force-reinstall colossalai.",
                  "compatibility: Colossal-AI's kernels were built with CUDA 11.8, the system "
                  "CUDA is 12.1: set CUDA_HOME to a CUDA 11.8 toolkit, or rebuild the kernels "
                  "with this one: BUILD_EXT=1 pip install --no-cache-dir --force-reinstall "
                  "colossalai.",
              }));
}

} // namespace
} // namespace colossalai::check
