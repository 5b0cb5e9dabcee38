#include "colossalai/cluster_check/node_probe.hpp"
#include "colossalai/exec/capture.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::cluster_check {
namespace {

// What a node with PyTorch, an AOT-built Colossal-AI, CUDA, a driver and NCCL answers.
const std::string full_answer = R"(@@ python
/venv/bin/python3
@@ sys
3.10.12
/venv/bin/python3
/venv/lib/python3.10/site-packages
@@ torch
/venv/lib/python3.10/site-packages/torch
@@ torch_version_py
__version__ = '2.1.0+cu121'
cuda = '12.1'
@@ torch_lib
libnccl.so.2
libnccl.so.2.18.1
@@ colossalai
/venv/lib/python3.10/site-packages/colossalai
@@ colossalai_version_py
__version__ = '0.3.6+torch2.1cu12.1'
@@ colossalai_c
fused_optim.cpython-310-x86_64-linux-gnu.so
@@ cuda_home
/usr/local/cuda-12.1
@@ nvcc
Cuda compilation tools, release 12.1, V12.1.105
@@ system_nccl
/usr/lib/x86_64-linux-gnu/libnccl.so.2
/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3
@@ shm
Filesystem     1024-blocks  Used Available Capacity Mounted on
shm                  65536     0     65536       0% /dev/shm
@@ ninja
/usr/bin/ninja
@@ gpus
NVIDIA H100 80GB HBM3, 9.0
NVIDIA H100 80GB HBM3, 9.0
@@ smi
| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4     |
@@ end
)";

TEST(ParseDump, SplitsSectionsWithTheirArgumentsAndStopsAtEnd) {
    Dump dump = parse_dump("@@ a\none\ntwo\n@@ b ARG x\n@@ a\nlater\n@@ end\n@@ c\nafter\n");
    EXPECT_TRUE(dump.complete);
    ASSERT_NE(dump.find("a"), nullptr);
    EXPECT_EQ(dump.find("a")->body, "one\ntwo\n"); // the first of a name wins
    ASSERT_NE(dump.find("b"), nullptr);
    EXPECT_EQ(dump.find("b")->argument, "ARG x");
    EXPECT_EQ(dump.find("b")->body, "");
    EXPECT_EQ(dump.find("c"), nullptr);
}

TEST(ParseDump, WithoutEndIsIncompleteAndLinesBeforeASectionAreIgnored) {
    Dump dump = parse_dump("motd line\n@@ python\n/usr/bin/python3");
    EXPECT_FALSE(dump.complete);
    EXPECT_EQ(dump.find("python")->body, "/usr/bin/python3\n");
    EXPECT_EQ(dump.sections.size(), 1U);
}

TEST(FactsFromDump, ReadsEveryValueAsTheLocalProbesWould) {
    check::Facts facts = facts_from_dump(parse_dump(full_answer));
    EXPECT_EQ(facts.python, "/venv/bin/python3");
    EXPECT_EQ(facts.python_version, "3.10.12");
    EXPECT_EQ(facts.torch_version, "2.1.0");
    EXPECT_EQ(facts.torch_cuda, "12.1");
    EXPECT_FALSE(facts.torch_cpu_only);
    EXPECT_EQ(facts.torch_nccl, "2.18.1");
    EXPECT_EQ(facts.torch_nccl_source,
              "/venv/lib/python3.10/site-packages/torch/lib/libnccl.so.2.18.1");
    EXPECT_EQ(facts.colossalai_version, "0.3.6");
    EXPECT_EQ(facts.aot_extension, true);
    EXPECT_EQ(facts.aot_torch, "2.1");
    EXPECT_EQ(facts.aot_cuda, "12.1");
    EXPECT_EQ(facts.cuda_home, "/usr/local/cuda-12.1");
    EXPECT_EQ(facts.system_cuda, "12.1");
    EXPECT_EQ(facts.system_nccl, "2.19.3");
    EXPECT_EQ(facts.system_nccl_library, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3");
    EXPECT_EQ(facts.shm_bytes, 64ULL * 1024 * 1024);
    EXPECT_FALSE(facts.jit_tools_probed); // an AOT build: the runtime build is not needed
    EXPECT_EQ(facts.driver_cuda, "12.4");
    ASSERT_TRUE(facts.gpus.has_value());
    ASSERT_EQ(facts.gpus->size(), 2U);
    EXPECT_EQ((*facts.gpus)[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ((*facts.gpus)[0].compute_capability, "9.0");
    EXPECT_TRUE(facts.warnings.empty());
}

TEST(FactsFromDump, NcclFromThePackageAndJitToolsWithoutAnAotBuild) {
    check::Facts facts = facts_from_dump(parse_dump(R"(@@ python
/usr/bin/python3
@@ sys
3.11.7
/usr/bin/python3
/site
@@ torch
/site/torch
@@ torch_version_py
__version__ = '2.3.0'
cuda = '12.1'
@@ nccl_package /site/nvidia_nccl_cu12-2.20.5.dist-info/METADATA
Metadata-Version: 2.1
Name: nvidia-nccl-cu12
Version: 2.20.5
@@ colossalai
/site/colossalai
@@ colossalai_version_py
@@ colossalai_metadata
Name: colossalai
Version: 0.4.0
@@ colossalai_c
@@ system_nccl
/usr/local/cuda/lib64/libnccl.so.2
@@ nccl_header
#define NCCL_MAJOR 2
#define NCCL_MINOR 21
#define NCCL_PATCH 5
@@ ninja
@@ cxx
/usr/bin/c++
@@ end
)"));
    EXPECT_EQ(facts.torch_nccl, "2.20.5");
    EXPECT_EQ(facts.torch_nccl_source, "nvidia-nccl-cu12");
    EXPECT_EQ(facts.colossalai_version, "0.4.0"); // METADATA when version.py says nothing
    EXPECT_EQ(facts.aot_extension, false);
    EXPECT_TRUE(facts.jit_tools_probed);
    EXPECT_EQ(facts.ninja, std::nullopt);
    EXPECT_EQ(facts.cxx, "/usr/bin/c++");
    EXPECT_EQ(facts.system_nccl, "2.21.5");
    EXPECT_EQ(facts.system_nccl_library, "/usr/local/cuda/lib64/libnccl.so.2");
    EXPECT_EQ(facts.cuda_home, std::nullopt);
    EXPECT_EQ(facts.gpus, std::nullopt);
    EXPECT_EQ(facts.driver_cuda, std::nullopt);
}

TEST(FactsFromDump, MissingPythonAnUnansweredQueryAndACutAnswerAreWarnings) {
    check::Facts none = facts_from_dump(parse_dump("@@ python\n@@ sys\n@@ end\n"));
    EXPECT_EQ(none.python, std::nullopt);
    ASSERT_EQ(none.warnings.size(), 1U);
    EXPECT_NE(none.warnings[0].find("no python3 or python"), std::string::npos);

    check::Facts silent = facts_from_dump(parse_dump("@@ python\n/usr/bin/python3\n@@ sys\n"));
    EXPECT_EQ(silent.python, "/usr/bin/python3");
    EXPECT_EQ(silent.python_version, std::nullopt);
    ASSERT_EQ(silent.warnings.size(), 2U);
    EXPECT_NE(silent.warnings[0].find("no answer to the sys.path query"), std::string::npos);
    EXPECT_NE(silent.warnings[1].find("ended early"), std::string::npos);
}

TEST(FactsFromDump, ACpuOnlyPyTorchAndAnUnparsableNvcc) {
    check::Facts facts = facts_from_dump(
        parse_dump("@@ python\n/p\n@@ sys\n3.9.1\n/p\n@@ torch\n/s/torch\n@@ torch_version_py\n"
                   "__version__ = '2.0.1+cpu'\ncuda = None\n@@ torch_lib\nlibnccl.so.2.1.1\n"
                   "@@ cuda_home\n/opt/cuda\n@@ nvcc\nSegmentation fault\n@@ end\n"));
    EXPECT_TRUE(facts.torch_cpu_only);
    EXPECT_EQ(facts.torch_cuda, std::nullopt);
    EXPECT_EQ(facts.torch_nccl, std::nullopt); // a CPU build uses no NCCL
    EXPECT_EQ(facts.cuda_home, "/opt/cuda");
    EXPECT_EQ(facts.system_cuda, std::nullopt);
    ASSERT_EQ(facts.warnings.size(), 1U);
    EXPECT_NE(facts.warnings[0].find("/opt/cuda/bin/nvcc -V"), std::string::npos);
}

// Found by fuzzing: sections that name no package directory.
TEST(FactsFromDump, APackageSectionWithoutItsDirectoryIsNoPackage) {
    check::Facts facts = facts_from_dump(
        parse_dump("@@ torch\n@@ torch_version_py\n__version__ = '2.1.0'\ncuda = '12.1'\n"
                   "@@ torch_lib\nlibnccl.so.2.18.1\n@@ end\n"));
    EXPECT_EQ(facts.torch_version, std::nullopt);
    EXPECT_EQ(facts.torch_nccl, std::nullopt);
}

// An editable Colossal-AI (pip install -e ., PEP 660): no package on sys.path, a .pth file that
// imports a finder whose MAPPING names the source tree, which the node sent.
const std::string editable_answer = R"(@@ python
/venv/bin/python3
@@ sys
3.10.12
/venv/bin/python3
/venv/lib/python3.10/site-packages
@@ pth1 /venv/lib/python3.10/site-packages/__editable__.colossalai-0.4.0.pth
import __editable___colossalai_0_4_0_finder; __editable___colossalai_0_4_0_finder.install()
@@ finder2 /venv/lib/python3.10/site-packages/__editable___colossalai_0_4_0_finder.py
MAPPING: dict[str, str] = {'colossalai': '/src/ColossalAI/colossalai'}
@@ editable2_1 /src/ColossalAI/colossalai
@@ editable_version2_1
__version__ = '0.4.0+torch2.1cu12.1'
@@ editable_c2_1
fused_optim.cpython-310-x86_64-linux-gnu.so
@@ end
)";

TEST(FactsFromDump, AnEditableColossalaiIsFollowedThroughItsPthAndFinder) {
    check::Facts facts = facts_from_dump(parse_dump(editable_answer));
    EXPECT_EQ(facts.colossalai_version, "0.4.0");
    EXPECT_EQ(facts.aot_extension, true);
    EXPECT_TRUE(facts.warnings.empty());
}

TEST(FactsFromDump, AnEditableFinderIsFollowedOnlyAsTheImportSystemWould) {
    // A finder that no .pth file imports is never installed.
    std::string no_pth = editable_answer;
    no_pth.erase(no_pth.find("@@ pth1"), no_pth.find("@@ finder2") - no_pth.find("@@ pth1"));
    EXPECT_FALSE(facts_from_dump(parse_dump(no_pth)).colossalai_version);
    // A mapped directory the node did not find a package in.
    std::string no_package = editable_answer;
    no_package.erase(no_package.find("@@ editable2_1"));
    no_package += "@@ end\n";
    EXPECT_FALSE(facts_from_dump(parse_dump(no_package)).colossalai_version);
    // A regular package on sys.path wins over the editable finder.
    std::string both = editable_answer;
    both.insert(both.find("@@ pth1"), "@@ colossalai\n/venv/lib/python3.10/site-packages/"
                                      "colossalai\n@@ colossalai_version_py\n"
                                      "__version__ = '0.3.6'\n");
    EXPECT_EQ(facts_from_dump(parse_dump(both)).colossalai_version, "0.3.6");
}

TEST(NvidiaSmi, GpuCsvLines) {
    auto gpus = parse_gpu_csv("NVIDIA A100-SXM4-40GB, 8.0\nTesla K80, [N/A]\n\nbroken\n");
    ASSERT_TRUE(gpus.has_value());
    ASSERT_EQ(gpus->size(), 2U);
    EXPECT_EQ((*gpus)[0].compute_capability, "8.0");
    EXPECT_EQ((*gpus)[1].name, "Tesla K80");
    EXPECT_EQ((*gpus)[1].compute_capability, std::nullopt);
    EXPECT_EQ(parse_gpu_csv("No devices were found\n"), std::nullopt);
    EXPECT_EQ(parse_gpu_csv(""), std::nullopt);
}

TEST(NvidiaSmi, CudaVersionOfTheHeader) {
    EXPECT_EQ(parse_smi_cuda_version("| Driver Version: 550.54   CUDA Version: 12.4     |"),
              "12.4");
    EXPECT_EQ(parse_smi_cuda_version("CUDA Version: 12.10\n"), "12.10");
    EXPECT_EQ(parse_smi_cuda_version("CUDA Version: N/A"), std::nullopt);
    EXPECT_EQ(parse_smi_cuda_version(""), std::nullopt);
}

TEST(DfSize, SecondFieldOfTheSecondLineInKib) {
    EXPECT_EQ(parse_df_size("Filesystem 1024-blocks Used Available Capacity Mounted on\n"
                            "tmpfs 24683664 0 24683664 0% /dev/shm\n"),
              24683664ULL * 1024);
    EXPECT_EQ(parse_df_size("Filesystem 1024-blocks\n"), std::nullopt);
    EXPECT_EQ(parse_df_size("header\ntmpfs lots 0\n"), std::nullopt);
    EXPECT_EQ(parse_df_size(""), std::nullopt);
}

// The node's /bin/sh reads the program with its arguments from the connection, whatever the
// login shell (ssh::program_input): --python as given, the query, the seconds rounded up.
TEST(NodeInput, TheProgramWithItsArgumentsQuoted) {
    std::string input =
        node_input(std::string("/opt/py it's/python3"), std::chrono::milliseconds(2500));
    EXPECT_EQ(input.rfind("{\nset -- '/opt/py it'\\''s/python3' ", 0), 0U) << input;
    EXPECT_NE(input.find(" 3\n" + std::string(node_program()) + "\n}\n"), std::string::npos)
        << input;
    EXPECT_EQ(node_input(std::nullopt, std::chrono::milliseconds(10000)).rfind("{\nset -- '' ", 0),
              0U);
}

// srun runs the same program as a command (`sh -c PROGRAM NAME ARGS...`), with the same
// arguments as the SSH input; a real sh runs it to its end.
TEST(NodeArgv, TheProgramAndTheSameArgumentsAsWords) {
    std::vector<std::string> argv =
        node_argv(std::string("/opt/py it's/python3"), std::chrono::milliseconds(2500));
    ASSERT_EQ(argv.size(), 7U);
    EXPECT_EQ((std::vector<std::string>(argv.begin(), argv.begin() + 5)),
              (std::vector<std::string>{"/bin/sh", "-c", std::string(node_program()),
                                        "colossalai-check", "/opt/py it's/python3"}));
    EXPECT_EQ(argv[6], "3");
    EXPECT_NE(node_input(std::string("/opt/py it's/python3"), std::chrono::milliseconds(2500))
                  .find(util::shell_quote(argv[5])),
              std::string::npos);
    std::vector<std::string> defaults = node_argv(std::nullopt, std::chrono::milliseconds(10000));
    EXPECT_EQ(defaults[4], "");
    EXPECT_EQ(defaults[6], "10");

    std::vector<std::string> missing =
        node_argv(std::string("/nonexistent/python3"), std::chrono::milliseconds(1000));
    exec::CaptureResult ran = exec::capture(missing, std::chrono::seconds(30));
    ASSERT_TRUE(ran.started) << ran.error;
    Dump dump = parse_dump(ran.output);
    EXPECT_TRUE(dump.complete) << ran.output;
    ASSERT_NE(dump.find("python"), nullptr) << ran.output;
    EXPECT_EQ(dump.find("python")->body, "/nonexistent/python3\n");
}

} // namespace
} // namespace colossalai::cluster_check
