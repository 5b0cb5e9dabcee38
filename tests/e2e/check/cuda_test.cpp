// Finding the CUDA toolkit and running its nvcc: fake CUDA homes with fake nvcc scripts.

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The CUDA lines of the report: System CUDA version and CUDA home.
struct CudaLines {
    std::string system;
    std::string home;
};

CudaLines cuda_lines(const RunResult& result) {
    std::vector<std::string> lines = report_lines(result.out);
    if (lines.size() != 23u) {
        ADD_FAILURE() << "unexpected report:\n" << result.out;
        return {};
    }
    return {lines[4], lines[9]};
}

class CheckCuda : public CheckTest {};

TEST_F(CheckCuda, NoCudaAnywhere) {
    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.err, "");
    CudaLines lines = cuda_lines(result);
    EXPECT_EQ(lines.system, "System CUDA version: N/A");
    EXPECT_EQ(lines.home, "CUDA home: N/A");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    EXPECT_EQ(report["environment"]["system_cuda_version"], nullptr);
    EXPECT_EQ(report["environment"]["cuda_home"], nullptr);
    EXPECT_EQ(report["compatibility"]["system_torch_cuda_match"], nullptr);
    EXPECT_EQ(report["warnings"], json::array());
}

TEST_F(CheckCuda, CudaHomeComesFirst) {
    fs::path home = cuda_home("cuda-home", nvcc_script("12.4"));
    m_env["CUDA_HOME"] = home.string();
    m_env["CUDA_PATH"] = cuda_home("cuda-path", nvcc_script("11.8")).string();
    m_env["PATH"] += ":" + (cuda_home("cuda-in-path", nvcc_script("10.2")) / "bin").string();
    m_env["COLOSSALAI_CUDA_DEFAULT_HOME"] = cuda_home("cuda-default", nvcc_script("13.0")).string();

    CudaLines lines = cuda_lines(check({"-i"}));
    EXPECT_EQ(lines.system, "System CUDA version: 12.4");
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());
}

TEST_F(CheckCuda, CudaHomeWithANewlineIsPrintedEscaped) {
    fs::path home = cuda_home("cuda\nGPUs: 8", nvcc_script("12.4"));
    m_env["CUDA_HOME"] = home.string();
    RunResult result = check({"-i"});
    EXPECT_EQ(report_value(result.out, "System CUDA version"), "12.4");
    EXPECT_EQ(report_value(result.out, "CUDA home"), (scratch() / "cuda\\x0aGPUs: 8").string());
    EXPECT_EQ(report_value(result.out, "GPUs"), "N/A"); // no forged line
    RunResult json_result;
    EXPECT_EQ(check_json({}, &json_result)["environment"]["cuda_home"], home.string());
}

TEST_F(CheckCuda, CudaPathWhenNoCudaHome) {
    m_env["CUDA_HOME"] = ""; // empty counts as unset, as in PyTorch
    fs::path home = cuda_home("cuda-path", nvcc_script("11.8"));
    m_env["CUDA_PATH"] = home.string();
    m_env["PATH"] += ":" + (cuda_home("cuda-in-path", nvcc_script("10.2")) / "bin").string();

    CudaLines lines = cuda_lines(check({"-i"}));
    EXPECT_EQ(lines.system, "System CUDA version: 11.8");
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());
}

TEST_F(CheckCuda, NvccFoundInPath) {
    fs::path home = cuda_home("cuda-12.10", nvcc_script("12.10"));
    m_env["PATH"] =
        (scratch() / "nothing").string() + ":" + (home / "bin").string() + ":" + m_env["PATH"];
    m_env["COLOSSALAI_CUDA_DEFAULT_HOME"] = cuda_home("cuda-default", nvcc_script("13.0")).string();

    RunResult result = check({"-i"});
    CudaLines lines = cuda_lines(result);
    EXPECT_EQ(lines.system, "System CUDA version: 12.10"); // the whole minor
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["system_cuda_version"], "12.10");
    EXPECT_EQ(report["environment"]["cuda_home"], home.string());
}

TEST_F(CheckCuda, DefaultHomeLast) {
    fs::path home = cuda_home("cuda-default", nvcc_script("13.0"));
    m_env["COLOSSALAI_CUDA_DEFAULT_HOME"] = home.string();

    CudaLines lines = cuda_lines(check({"-i"}));
    EXPECT_EQ(lines.system, "System CUDA version: 13.0");
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());
}

TEST_F(CheckCuda, CudaHomeWithoutNvcc) {
    fs::path home = scratch() / "runtime-only";
    fs::create_directories(home / "lib64");
    m_env["CUDA_HOME"] = home.string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: " + (home / "bin" / "nvcc").string() +
                                       ": no executable nvcc; System CUDA version is N/A"});
    CudaLines lines = cuda_lines(result);
    EXPECT_EQ(lines.system, "System CUDA version: N/A");
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());
}

TEST_F(CheckCuda, NvccThatHangsIsKilledAtTheTimeout) {
    fs::path home = cuda_home("cuda-hang", "#!/bin/sh\n" + hang_command());
    m_env["CUDA_HOME"] = home.string();
    // Long enough for the probes that do not hang, even on a loaded machine (0.3 s was not).
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "1500";
    std::string warning = "colossalai: warning: " + (home / "bin" / "nvcc").string() +
                          " -V: no answer within 1.5 s, killed; System CUDA version is N/A";

    RunResult result = check({"-i"});
    EXPECT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err), std::vector<std::string>{warning});
    CudaLines lines = cuda_lines(result);
    EXPECT_EQ(lines.system, "System CUDA version: N/A");
    EXPECT_EQ(lines.home, "CUDA home: " + home.string());

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    EXPECT_EQ(report["environment"]["system_cuda_version"], nullptr);
    EXPECT_EQ(report["warnings"], json::array({warning.substr(21)}));
}

TEST_F(CheckCuda, NvccThatCrashes) {
    fs::path home = cuda_home("cuda-crash", "#!/bin/sh\nkill -SEGV $$\n");
    m_env["CUDA_HOME"] = home.string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: " + (home / "bin" / "nvcc").string() +
                                       " -V: killed by signal 11; System CUDA version is N/A"});
    EXPECT_EQ(cuda_lines(result).system, "System CUDA version: N/A");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["system_cuda_version"], nullptr);
    EXPECT_EQ(report["environment"]["cuda_home"], home.string());
}

TEST_F(CheckCuda, NvccThatFailsOrPrintsNoRelease) {
    fs::path failing = cuda_home("cuda-fail", "#!/bin/sh\necho 'nvcc fatal'\nexit 4\n");
    m_env["CUDA_HOME"] = failing.string();
    RunResult result = check({"-i"});
    EXPECT_EQ(
        lines_of(result.err),
        std::vector<std::string>{"colossalai: warning: " + (failing / "bin" / "nvcc").string() +
                                 " -V: exited with status 4; System CUDA version is N/A"});
    EXPECT_EQ(cuda_lines(result).system, "System CUDA version: N/A");

    fs::path odd = cuda_home("cuda-odd", "#!/bin/sh\necho 'Cuda compilation tools, release 12'\n");
    m_env["CUDA_HOME"] = odd.string();
    result = check({"-i"});
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{
                  "colossalai: warning: " + (odd / "bin" / "nvcc").string() +
                  " -V: no 'release X.Y' in its output; System CUDA version is N/A"});
    EXPECT_EQ(cuda_lines(result).system, "System CUDA version: N/A");
}

TEST_F(CheckCuda, SystemCudaAgainstPyTorchs) {
    install_torch("__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
    m_env["CUDA_HOME"] = cuda_home("cuda-12.10", nvcc_script("12.10")).string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1); // 12.10 is not 12.1
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[19], "System and PyTorch CUDA version match: x");

    m_env["CUDA_HOME"] = cuda_home("cuda-12.1", nvcc_script("12.1")).string();
    result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[19], "System and PyTorch CUDA version match: \u2713");
}

} // namespace
} // namespace colossalai::test
