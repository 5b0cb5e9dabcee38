// `colossalai check -i` against this machine's real Python (Debian's python3-torch) and real CUDA
// toolkit, compared with what torch itself and nvcc say.

#include "fixture.hpp"

#include <unistd.h>

#include <algorithm>

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// What PyTorch's cpp_extension would pick with PATH=/usr/bin:/bin and no CUDA_HOME/CUDA_PATH.
std::optional<fs::path> expected_cuda_home() {
    for (const char* dir : {"/usr/bin", "/bin"}) {
        if (::access((fs::path(dir) / "nvcc").c_str(), X_OK) == 0) {
            return fs::path(dir).parent_path();
        }
    }
    if (fs::is_directory("/usr/local/cuda")) {
        return fs::path("/usr/local/cuda");
    }
    return std::nullopt;
}

TEST(CheckRealMachine, AgreesWithTorchAndNvcc) {
    RunResult torch = run(
        {"/usr/bin/python3", "-c", "import torch; print(torch.__version__, torch.version.cuda)"});
    if (torch.exit_code != 0) {
        GTEST_SKIP() << "/usr/bin/python3 has no torch: " << torch.err;
    }
    std::string answer = first_line(torch.out);
    std::string version = answer.substr(0, answer.find(' '));
    std::string cuda = answer.substr(answer.find(' ') + 1);
    // Expected forms: `+local` dropped, at most three components; `None` is N/A.
    version = version.substr(0, version.find('+'));
    std::size_t first_dot = version.find('.');
    std::size_t second_dot =
        first_dot == std::string::npos ? first_dot : version.find('.', first_dot + 1);
    std::size_t third_dot =
        second_dot == std::string::npos ? second_dot : version.find('.', second_dot + 1);
    version = version.substr(0, third_dot);
    std::string torch_cuda = cuda == "None" ? "N/A" : cuda;
    std::string python_version = first_line(
        run({"/usr/bin/python3", "-c", "import sys; print(sys.version.split()[0])"}).out);

    std::string system_cuda = "N/A";
    std::optional<fs::path> home = expected_cuda_home();
    if (home) {
        RunResult nvcc = run({(*home / "bin" / "nvcc").string(), "-V"});
        // "Cuda compilation tools, release 12.4, V12.4.131"
        std::size_t start = nvcc.out.find("release ");
        std::size_t end = start == std::string::npos ? start : nvcc.out.find(',', start);
        if (nvcc.exit_code == 0 && end != std::string::npos) {
            system_cuda = nvcc.out.substr(start + 8, end - start - 8);
        }
    }

    RunOptions options;
    options.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
    RunResult result = run_colossalai({"check", "-i", "--python", "/usr/bin/python3"}, options);
    ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_GE(lines.size(), 19u) << result.out;
    EXPECT_EQ(lines[2], "Colossal-AI version: N/A"); // not packaged by Debian
    EXPECT_EQ(lines[3], "PyTorch version: " + version);
    EXPECT_EQ(lines[4], "System CUDA version: " + system_cuda);
    EXPECT_EQ(lines[5], "CUDA version required by PyTorch: " + torch_cuda);
    auto python_line =
        std::find(lines.begin(), lines.end(), "Python: /usr/bin/python3 (" + python_version + ")");
    EXPECT_NE(python_line, lines.end()) << result.out;
    EXPECT_NE(std::find(lines.begin(), lines.end(),
                        "CUDA home: " + (home ? home->string() : std::string("N/A"))),
              lines.end())
        << result.out;
    if (torch_cuda == "N/A" && system_cuda != "N/A") {
        EXPECT_EQ(result.exit_code, 1); // a CPU-only PyTorch cannot use the system CUDA
        EXPECT_NE(std::find(lines.begin(), lines.end(), "System and PyTorch CUDA version match: x"),
                  lines.end());
    }

    RunResult json_result =
        run_colossalai({"check", "--json", "--python", "/usr/bin/python3"}, options);
    nlohmann::json report = nlohmann::json::parse(json_result.out);
    EXPECT_EQ(json_result.exit_code, result.exit_code);
    EXPECT_EQ(report["environment"]["torch_version"], version);
    EXPECT_EQ(report["environment"]["torch_cuda_version"],
              torch_cuda == "N/A" ? nlohmann::json(nullptr) : nlohmann::json(torch_cuda));
    EXPECT_EQ(report["environment"]["system_cuda_version"],
              system_cuda == "N/A" ? nlohmann::json(nullptr) : nlohmann::json(system_cuda));
    EXPECT_EQ(report["environment"]["python"], "/usr/bin/python3");
}

} // namespace
} // namespace colossalai::test
