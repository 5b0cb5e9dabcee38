#include "case_name.hpp"
#include "files.hpp"

#include "colossalai/check/cuda.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

struct NvccCase {
    const char* name;
    const char* output;
    std::optional<std::string> release;
};

class ParseNvccRelease : public ::testing::TestWithParam<NvccCase> {};

TEST_P(ParseNvccRelease, TakesTheWholeReleaseToken) {
    EXPECT_EQ(parse_nvcc_release(GetParam().output), GetParam().release) << GetParam().name;
}

// `nvcc -V` as the real toolkits print it.
INSTANTIATE_TEST_SUITE_P(
    Table, ParseNvccRelease,
    ::testing::Values(
        NvccCase{"CUDA 10.2",
                 "nvcc: NVIDIA (R) Cuda compiler driver\n"
                 "Copyright (c) 2005-2019 NVIDIA Corporation\n"
                 "Built on Wed_Oct_23_19:24:38_PDT_2019\n"
                 "Cuda compilation tools, release 10.2, V10.2.89\n",
                 "10.2"},
        NvccCase{"CUDA 11.8",
                 "nvcc: NVIDIA (R) Cuda compiler driver\n"
                 "Copyright (c) 2005-2022 NVIDIA Corporation\n"
                 "Built on Wed_Sep_21_10:33:58_PDT_2022\n"
                 "Cuda compilation tools, release 11.8, V11.8.89\n"
                 "Build cuda_11.8.r11.8/compiler.31833905_0\n",
                 "11.8"},
        NvccCase{"CUDA 12.4",
                 "nvcc: NVIDIA (R) Cuda compiler driver\n"
                 "Copyright (c) 2005-2024 NVIDIA Corporation\n"
                 "Built on Thu_Mar_28_02:18:24_PDT_2024\n"
                 "Cuda compilation tools, release 12.4, V12.4.131\n"
                 "Build cuda_12.4.r12.4/compiler.34097967_0\n",
                 "12.4"},
        NvccCase{"CUDA 13.0",
                 "nvcc: NVIDIA (R) Cuda compiler driver\n"
                 "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                 "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                 "Cuda compilation tools, release 13.0, V13.0.88\n"
                 "Build cuda_13.0.r13.0/compiler.36424714_0\n",
                 "13.0"},
        NvccCase{"two-digit minor kept", "Cuda compilation tools, release 12.10, V12.10.20\n",
                 "12.10"},
        NvccCase{"CRLF (Windows build)",
                 "nvcc: NVIDIA (R) Cuda compiler driver\r\n"
                 "Cuda compilation tools, release 12.1, V12.1.105\r\n",
                 "12.1"},
        NvccCase{"no comma at the end", "Cuda compilation tools, release 11.0", "11.0"},
        NvccCase{"no release line", "nvcc: NVIDIA (R) Cuda compiler driver\n", std::nullopt},
        NvccCase{"major only", "Cuda compilation tools, release 12, V12\n", std::nullopt},
        NvccCase{"not a number", "Cuda compilation tools, release twelve.four\n", std::nullopt},
        NvccCase{"three components", "release 12.4.1, V12\n", std::nullopt},
        NvccCase{"part of another word", "prerelease 12.4,\n", std::nullopt},
        NvccCase{"release at the end", "Cuda compilation tools, release", std::nullopt},
        // Found by fuzz/fuzz_nvcc: digits beyond what a version can hold are not a version.
        NvccCase{"overflowing minor", "release 111.2777777777777777777777777777777777777\n",
                 std::nullopt},
        NvccCase{"shell error", "sh: 1: nvcc: not found\n", std::nullopt},
        NvccCase{"empty", "", std::nullopt}),
    test::CaseName());

// Records which paths the rule asked about.
struct ExistsStub {
    std::vector<std::string> existing;
    bool operator()(const fs::path& path) const {
        return std::find(existing.begin(), existing.end(), path.string()) != existing.end();
    }
};

TEST(FindCudaHome, FollowsPyTorchsOrder) {
    TempDir root;
    root.write("tool/bin/nvcc", "#!/bin/sh\n", 0755);
    std::string path = "/nonexistent:" + (root.path() / "tool" / "bin").string();
    ExistsStub exists{{"/usr/local/cuda"}};

    CudaHomeInputs inputs{"/opt/cuda-home", "/opt/cuda-path", path, "/usr/local/cuda"};
    EXPECT_EQ(find_cuda_home(inputs, exists), fs::path("/opt/cuda-home"));

    inputs.cuda_home_env = "";
    EXPECT_EQ(find_cuda_home(inputs, exists), fs::path("/opt/cuda-path"));

    inputs.cuda_home_env.reset();
    inputs.cuda_path_env.reset();
    EXPECT_EQ(find_cuda_home(inputs, exists), root.path() / "tool");

    inputs.path_env = "/nonexistent";
    EXPECT_EQ(find_cuda_home(inputs, exists), fs::path("/usr/local/cuda"));

    inputs.default_home = "/opt/missing";
    EXPECT_EQ(find_cuda_home(inputs, exists), std::nullopt);

    inputs.default_home = "";
    EXPECT_EQ(find_cuda_home(inputs, ExistsStub{{""}}), std::nullopt);
}

TEST(FindCudaHome, NonExecutableNvccInPathDoesNotCount) {
    TempDir root;
    root.write("tool/bin/nvcc", "not executable\n", 0644);
    CudaHomeInputs inputs{std::nullopt, std::nullopt, (root.path() / "tool" / "bin").string(),
                          "/opt/missing"};
    EXPECT_EQ(find_cuda_home(inputs, ExistsStub{}), std::nullopt);
}

TEST(ProbeSystemCuda, NoHomeIsNoVersionAndNoWarning) {
    SystemCuda cuda = probe_system_cuda(std::nullopt, std::chrono::milliseconds(100));
    EXPECT_EQ(cuda.home, std::nullopt);
    EXPECT_EQ(cuda.version, std::nullopt);
    EXPECT_EQ(cuda.warning, std::nullopt);
}

TEST(ProbeSystemCuda, HomeWithoutNvccWarns) {
    TempDir root;
    SystemCuda cuda = probe_system_cuda(root.path(), std::chrono::milliseconds(100));
    EXPECT_EQ(cuda.home, root.path());
    EXPECT_EQ(cuda.version, std::nullopt);
    EXPECT_EQ(cuda.warning, (root.path() / "bin" / "nvcc").string() +
                                ": no executable nvcc; System CUDA version is N/A");
}

} // namespace
} // namespace colossalai::check
