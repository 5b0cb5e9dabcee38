// The driver probe against a fake libcuda.so.1 (built with the tests; see fixtures/).

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class CheckDriver : public CheckTest {
protected:
    void SetUp() override {
        CheckTest::SetUp();
        install_torch("__version__ = '2.1.0+cu121'\ncuda: Optional[str] = '12.1'\n");
        m_env["COLOSSALAI_CUDA_DRIVER_LIBRARY"] = fake_driver("driver/libcuda.so.1").string();
    }

    // The driver lines: from "Driver CUDA version" to the last GPU line, and the driver check.
    struct DriverLines {
        std::vector<std::string> environment;
        std::string check;
    };

    static DriverLines driver_lines(const RunResult& result) {
        std::vector<std::string> lines = report_lines(result.out);
        DriverLines found;
        for (const std::string& line : lines) {
            if (line.rfind("Driver CUDA version: ", 0) == 0 || line.rfind("GPU", 0) == 0) {
                found.environment.push_back(line);
            } else if (line.rfind("Driver supports PyTorch CUDA version: ", 0) == 0) {
                found.check = line;
            }
        }
        return found;
    }
};

TEST_F(CheckDriver, ReportsTheDriverAndEveryGpu) {
    m_env["FAKE_CUDA_VERSION"] = "12040";
    m_env["FAKE_CUDA_GPUS"] = "NVIDIA A100-SXM4-80GB@8.0;NVIDIA A100-SXM4-80GB@8.0;Tesla T4@7.5";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 12.4", "GPUs: 3",
                                        "GPU 0: NVIDIA A100-SXM4-80GB (compute capability 8.0)",
                                        "GPU 1: NVIDIA A100-SXM4-80GB (compute capability 8.0)",
                                        "GPU 2: Tesla T4 (compute capability 7.5)"}));
    EXPECT_EQ(lines.check, "Driver supports PyTorch CUDA version: \u2713");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["driver_cuda_version"], "12.4");
    EXPECT_EQ(report["environment"]["gpu_count"], "3");
    EXPECT_EQ(report["environment"]["gpus"],
              json::array({{{"name", "NVIDIA A100-SXM4-80GB"}, {"compute_capability", "8.0"}},
                           {{"name", "NVIDIA A100-SXM4-80GB"}, {"compute_capability", "8.0"}},
                           {{"name", "Tesla T4"}, {"compute_capability", "7.5"}}}));
    EXPECT_EQ(report["compatibility"]["driver_supports_torch_cuda"], true);
}

TEST_F(CheckDriver, DriverTooOldForPyTorchFails) {
    m_env["FAKE_CUDA_VERSION"] = "11080";
    m_env["FAKE_CUDA_GPUS"] = "Tesla V100-SXM2-16GB";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1);
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment, (std::vector<std::string>{"Driver CUDA version: 11.8", "GPUs: 1",
                                                           "GPU 0: Tesla V100-SXM2-16GB"}));
    EXPECT_EQ(lines.check, "Driver supports PyTorch CUDA version: x");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 1);
    EXPECT_EQ(report["environment"]["gpus"],
              json::array({{{"name", "Tesla V100-SXM2-16GB"}, {"compute_capability", nullptr}}}));
    EXPECT_EQ(report["compatibility"]["driver_supports_torch_cuda"], false);
    EXPECT_EQ(report["ok"], false);
}

TEST_F(CheckDriver, GpuNewerThanPyTorchsCudaFailsWithAdvice) {
    // "sm_120 is not compatible with the current PyTorch installation": an RTX 5090 with cu121.
    m_env["FAKE_CUDA_VERSION"] = "12080";
    m_env["FAKE_CUDA_GPUS"] = "NVIDIA H100 80GB HBM3@9.0;NVIDIA GeForce RTX 5090@12.0";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(report_value(result.out, "GPU 1"),
              "NVIDIA GeForce RTX 5090 (compute capability 12.0)");
    EXPECT_EQ(report_value(result.out, "Driver supports PyTorch CUDA version"), "\u2713");
    EXPECT_EQ(report_value(result.out, "PyTorch CUDA supports every GPU"), "x");
    EXPECT_EQ(report_advice(result.out),
              std::vector<std::string>{
                  "- GPU 1 (NVIDIA GeForce RTX 5090, compute capability 12.0) needs CUDA 12.8 or "
                  "newer, PyTorch has CUDA 12.1: install a PyTorch built for CUDA 12.8 or newer, "
                  "e.g. pip install torch --index-url https://download.pytorch.org/whl/cu128."});

    m_env["FAKE_CUDA_GPUS"] = "NVIDIA H100 80GB HBM3@9.0;NVIDIA H100 80GB HBM3@9.0";
    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    EXPECT_EQ(report["compatibility"]["torch_cuda_supports_gpus"], true);
}

TEST_F(CheckDriver, NoDeviceIsZeroGpus) {
    m_env["FAKE_CUDA_VERSION"] = "12010"; // exactly PyTorch's 12.1: new enough
    m_env["FAKE_CUDA_INIT_ERROR"] = "100";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.err, "");
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 12.1", "GPUs: 0"}));
    EXPECT_EQ(lines.check, "Driver supports PyTorch CUDA version: \u2713");
}

TEST_F(CheckDriver, InitFailureKeepsTheVersionAndWarns) {
    m_env["FAKE_CUDA_INIT_ERROR"] = "999";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{
                  "colossalai: warning: CUDA driver: cuInit failed: CUDA_ERROR_UNKNOWN (999)"});
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 12.4", "GPUs: N/A"}));
}

// FAKE_CUDA_CLOSE_HANG: the probe's pipe reaches EOF but the child does not end; waiting for it
// without the deadline would hang the check for good.
TEST_F(CheckDriver, HangingDriverIsKilledAtTheTimeout) {
    // Long enough for the probes that do not hang, even on a loaded machine (0.3 s was not).
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "1500";
    // Through a link in the scratch directory, so that the forked probe's command line names it
    // and TearDown would find it alive.
    fs::path python = scratch() / "python3";
    fs::create_symlink(venv().python, python);
    for (const char* hang : {"FAKE_CUDA_HANG", "FAKE_CUDA_CLOSE_HANG"}) {
        SCOPED_TRACE(hang);
        m_env.erase("FAKE_CUDA_HANG");
        m_env.erase("FAKE_CUDA_CLOSE_HANG");
        m_env[hang] = "1";

        RunResult result = check({"-i", "--python", python.string()});
        EXPECT_FALSE(result.timed_out);
        EXPECT_EQ(result.exit_code, 0);
        std::string library = (scratch() / "driver" / "libcuda.so.1").string();
        EXPECT_EQ(lines_of(result.err),
                  std::vector<std::string>{"colossalai: warning: CUDA driver " + library +
                                           ": no answer within 1.5 s, probe killed; GPUs are N/A"});
        DriverLines lines = driver_lines(result);
        EXPECT_EQ(lines.environment,
                  (std::vector<std::string>{"Driver CUDA version: 12.4", "GPUs: N/A"}));
    }
}

TEST_F(CheckDriver, CrashingDriverDoesNotTakeTheReportDown) {
    m_env["FAKE_CUDA_CRASH"] = "1";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    std::string library = (scratch() / "driver" / "libcuda.so.1").string();
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: CUDA driver " + library +
                                       ": the probe died of signal 11 (Segmentation fault)"});
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 12.4", "GPUs: N/A"}));
    EXPECT_EQ(report_lines(result.out).front(), "#### Installation Report ####");
}

TEST_F(CheckDriver, DriverThatExitsIsReported) {
    m_env["FAKE_CUDA_EXIT"] = "3";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    std::string library = (scratch() / "driver" / "libcuda.so.1").string();
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: CUDA driver " + library +
                                       ": the probe exited with status 3"});
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 12.4", "GPUs: N/A"}));
}

TEST_F(CheckDriver, StubLibraryIsNeverUsed) {
    fs::path stub = fake_driver("cuda/lib64/stubs/libcuda.so.1");
    m_env["COLOSSALAI_CUDA_DRIVER_LIBRARY"] = stub.string();
    m_env["FAKE_CUDA_CRASH"] = "1"; // calling into it would kill the probe

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: " + stub.string() +
                                       " is the CUDA stub library, not a driver (is a 'stubs' "
                                       "directory in LD_LIBRARY_PATH?); driver values are N/A"});
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: N/A", "GPUs: N/A"}));
    EXPECT_EQ(lines.check, "Driver supports PyTorch CUDA version: N/A");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["driver_cuda_version"], nullptr);
    EXPECT_EQ(report["environment"]["gpus"], nullptr);
    EXPECT_EQ(report["warnings"].size(), 1u);
}

TEST_F(CheckDriver, StubAnsweringAsAStubIsNeverUsed) {
    m_env["FAKE_CUDA_STUB"] = "1"; // not in a stubs directory, but says CUDA_ERROR_STUB_LIBRARY

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: N/A", "GPUs: N/A"}));
    EXPECT_EQ(lines_of(result.err).size(), 1u) << result.err;
}

TEST_F(CheckDriver, DefaultNameIsFoundThroughTheLoaderPath) {
    m_env.erase("COLOSSALAI_CUDA_DRIVER_LIBRARY"); // dlopen("libcuda.so.1")
    m_env["LD_LIBRARY_PATH"] = (scratch() / "driver").string();
    m_env["FAKE_CUDA_VERSION"] = "13000";
    m_env["FAKE_CUDA_GPUS"] = "NVIDIA H200@9.0";

    RunResult result = check({"-i"});
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: 13.0", "GPUs: 1",
                                        "GPU 0: NVIDIA H200 (compute capability 9.0)"}));
}

TEST_F(CheckDriver, NoDriverIsNotAnError) {
    m_env["COLOSSALAI_CUDA_DRIVER_LIBRARY"] = (scratch() / "none" / "libcuda.so.1").string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.err, "");
    DriverLines lines = driver_lines(result);
    EXPECT_EQ(lines.environment,
              (std::vector<std::string>{"Driver CUDA version: N/A", "GPUs: N/A"}));
    EXPECT_EQ(lines.check, "Driver supports PyTorch CUDA version: N/A");
}

} // namespace
} // namespace colossalai::test
