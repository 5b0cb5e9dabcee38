#include "case_name.hpp"
#include "files.hpp"

#include "colossalai/check/packages.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

using test::TempDir;
using Text = std::optional<std::string>;

struct TorchCase {
    const char* name;
    python::TorchInfo info;
    Text version;
    Text cuda;
    bool cpu_only;
};

class ApplyTorchInfo : public ::testing::TestWithParam<TorchCase> {};

TEST_P(ApplyTorchInfo, NormalizesTheVersion) {
    const TorchCase& c = GetParam();
    Facts facts;
    apply_torch_info(c.info, facts);
    EXPECT_EQ(facts.torch_version, c.version) << c.name;
    EXPECT_EQ(facts.torch_cuda, c.cuda) << c.name;
    EXPECT_EQ(facts.torch_cpu_only, c.cpu_only) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ApplyTorchInfo,
    ::testing::Values(
        TorchCase{"CUDA wheel", {"2.1.0+cu121", "12.1", false}, "2.1.0", "12.1", false},
        TorchCase{
            "git build", {"1.13.0a0+gitabc", std::nullopt, true}, "1.13.0a0", std::nullopt, true},
        TorchCase{"four components", {"2.1.0.post1", "11.8", false}, "2.1.0", "11.8", false},
        TorchCase{"two components", {"1.13", "11.7", false}, "1.13", "11.7", false},
        TorchCase{"nightly", {"2.6.0.dev20241112+cu124", "12.4", false}, "2.6.0", "12.4", false},
        TorchCase{"empty strings", {"", "", false}, std::nullopt, std::nullopt, false},
        TorchCase{
            "nothing", {std::nullopt, std::nullopt, false}, std::nullopt, std::nullopt, false}),
    test::CaseName());

struct ColossalaiCase {
    const char* name;
    python::ColossalaiInfo info;
    Text version;
    Text aot_torch;
    Text aot_cuda;
};

class ApplyColossalaiInfo : public ::testing::TestWithParam<ColossalaiCase> {};

TEST_P(ApplyColossalaiInfo, DropsTheLocalLabel) {
    const ColossalaiCase& c = GetParam();
    Facts facts;
    apply_colossalai_info(c.info, false, facts);
    EXPECT_EQ(facts.colossalai_version, c.version) << c.name;
    EXPECT_EQ(facts.aot_torch, c.aot_torch) << c.name;
    EXPECT_EQ(facts.aot_cuda, c.aot_cuda) << c.name;
    EXPECT_EQ(facts.aot_extension, false) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ApplyColossalaiInfo,
    ::testing::Values(
        ColossalaiCase{"label", {"0.1.5+torch1.11cu11.3", "1.11", "11.3"}, "0.1.5", "1.11", "11.3"},
        ColossalaiCase{
            "plain", {"0.4.2", std::nullopt, std::nullopt}, "0.4.2", std::nullopt, std::nullopt},
        ColossalaiCase{"four components kept",
                       {"0.4.0.post1", std::nullopt, std::nullopt},
                       "0.4.0.post1",
                       std::nullopt,
                       std::nullopt},
        ColossalaiCase{
            "unknown version", {std::nullopt, "1.13", "11.7"}, std::nullopt, "1.13", "11.7"},
        ColossalaiCase{
            "only a label", {"+torch1.11cu11.3", "1.11", "11.3"}, std::nullopt, "1.11", "11.3"}),
    test::CaseName());

TEST(HasCompiledExtension, NeedsARegularSoFile) {
    TempDir root;
    EXPECT_FALSE(has_compiled_extension(root.path() / "missing"));
    root.write("empty/__init__.py", "");
    EXPECT_FALSE(has_compiled_extension(root.path() / "empty"));
    root.write("sources/fused_optim.cpp", "");
    root.write("sources/libfoo.so.1", "");
    root.write("sources/cpu_adam.so.d/x", "");
    EXPECT_FALSE(has_compiled_extension(root.path() / "sources"));
    root.write("built/fused_optim.cpython-311-x86_64-linux-gnu.so", "\x7f"
                                                                    "ELF");
    EXPECT_TRUE(has_compiled_extension(root.path() / "built"));
    root.write("abi3/cpu_adam.abi3.so", "");
    EXPECT_TRUE(has_compiled_extension(root.path() / "abi3"));
    std::filesystem::create_directories(root.path() / "dir/ext.so");
    EXPECT_FALSE(has_compiled_extension(root.path() / "dir"));
}

TEST(ReadPackages, ReadsBothPackagesFromTheSearchPath) {
    TempDir site;
    site.write("torch/version.py", "__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
    site.write("colossalai/version.py", "__version__ = '0.2.5'\ntorch = '2.1'\ncuda = '12.1'\n");
    site.write("colossalai/_C/fused_optim.cpython-310-x86_64-linux-gnu.so", "");
    python::Environment environment;
    environment.search_path = {site.path()};
    Facts facts;
    read_packages(environment, facts);
    EXPECT_EQ(facts.torch_version, "2.1.0");
    EXPECT_EQ(facts.torch_cuda, "12.1");
    EXPECT_EQ(facts.colossalai_version, "0.2.5");
    EXPECT_EQ(facts.aot_extension, true);
    EXPECT_EQ(facts.aot_torch, "2.1");
    EXPECT_EQ(facts.aot_cuda, "12.1");
}

TEST(ReadPackages, NothingInstalledLeavesEverythingUnknown) {
    TempDir site;
    python::Environment environment;
    environment.search_path = {site.path()};
    Facts facts;
    read_packages(environment, facts);
    EXPECT_EQ(facts.torch_version, std::nullopt);
    EXPECT_EQ(facts.colossalai_version, std::nullopt);
    EXPECT_EQ(facts.aot_extension, std::nullopt);
}

TEST(ReadPackages, PyTorchsNcclBundledFirstThenTheNvidiaPackage) {
    TempDir site;
    site.write("torch/version.py", "__version__ = '2.3.0+cu121'\ncuda = '12.1'\n");
    site.write("nvidia_nccl_cu12-2.20.5.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.20.5\n");
    python::Environment environment;
    environment.search_path = {site.path()};
    Facts wheel;
    read_packages(environment, wheel);
    EXPECT_EQ(wheel.torch_nccl, "2.20.5");
    EXPECT_EQ(wheel.torch_nccl_source, "nvidia-nccl-cu12");

    site.write("torch/lib/libnccl.so.2.18.3", "");
    Facts bundled;
    read_packages(environment, bundled);
    EXPECT_EQ(bundled.torch_nccl, "2.18.3");
    EXPECT_EQ(bundled.torch_nccl_source, (site.path() / "torch/lib/libnccl.so.2.18.3").string());

    site.write("torch/version.py", "__version__ = '2.3.0+cpu'\ncuda = None\n");
    Facts cpu;
    read_packages(environment, cpu);
    EXPECT_EQ(cpu.torch_nccl, std::nullopt); // a CPU-only build uses no NCCL
}

TEST(ReadPackages, EditableColossalaiVersionFromItsDistInfo) {
    TempDir root;
    root.write("src/colossalai/__init__.py", "");
    root.write("site/__editable__.colossalai-0.4.1.pth",
               "import __editable___colossalai_0_4_1_finder; "
               "__editable___colossalai_0_4_1_finder.install()\n");
    root.write("site/__editable___colossalai_0_4_1_finder.py",
               "MAPPING = {'colossalai': '" + (root.path() / "src/colossalai").string() + "'}\n");
    root.write("site/colossalai-0.4.1.dist-info/METADATA", "Name: colossalai\nVersion: 0.4.1\n");
    python::Environment environment;
    environment.search_path = {root.path() / "site"};
    Facts facts;
    read_packages(environment, facts);
    EXPECT_EQ(facts.colossalai_version, "0.4.1");
    EXPECT_EQ(facts.aot_extension, false);
}

} // namespace
} // namespace colossalai::check
