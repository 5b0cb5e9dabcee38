// `colossalai check -i` against a real venv with hand-written torch and colossalai packages.

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const torch_2_1 = "from typing import Optional\n\n"
                              "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
                              "__version__ = '2.1.0+cu121'\n"
                              "debug = False\n"
                              "cuda: Optional[str] = '12.1'\n"
                              "git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\n"
                              "hip: Optional[str] = None\n";

const char* const torch_cpu = "__version__ = '1.13.0a0'\n"
                              "debug = False\n"
                              "cuda = None\n"
                              "git_version = 'Unknown'\n"
                              "hip = None\n";

const char* const extension = "fused_optim.cpython-311-x86_64-linux-gnu.so";

// The JSON `compatibility` object: the four checks of the original as given, the newer ones N/A.
json original_checks(const json& torch, const json& system_torch, const json& system_colossalai,
                     const json& driver) {
    return json({{"torch_version_match", torch},
                 {"system_torch_cuda_match", system_torch},
                 {"system_colossalai_cuda_match", system_colossalai},
                 {"driver_supports_torch_cuda", driver},
                 {"torch_cuda_supports_gpus", nullptr},
                 {"jit_ninja", nullptr},
                 {"jit_compiler", nullptr},
                 {"jit_nvcc_matches_torch", nullptr},
                 {"shm_sufficient", nullptr}});
}

class CheckPython : public CheckTest {};

TEST_F(CheckPython, EverythingCompatible) {
    install_torch(torch_2_1);
    install_colossalai("__version__ = '0.2.5'\ntorch = \"2.1\"\ncuda = \"12.1\"\n", {extension});
    std::string home = cuda_home("cuda-12.1", nvcc_script("12.1")).string();
    m_env["CUDA_HOME"] = home;
    m_env["COLOSSALAI_CUDA_DRIVER_LIBRARY"] = fake_driver("driver/libcuda.so.1").string();
    m_env["FAKE_CUDA_VERSION"] = "12040";
    m_env["FAKE_CUDA_GPUS"] = "NVIDIA H100 80GB HBM3@9.0;NVIDIA H100 80GB HBM3@9.0";
    // PyTorch's NCCL from the nvidia-nccl-cu12 wheel, the system's from LD_LIBRARY_PATH.
    write_file(venv().site_packages / "nvidia_nccl_cu12-2.18.1.dist-info" / "METADATA",
               "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.18.1\n");
    fs::path nccl = scratch() / "nccl" / "lib" / "libnccl.so.2.19.3";
    write_file(nccl, "");
    fs::create_symlink("libnccl.so.2.19.3", nccl.parent_path() / "libnccl.so.2");
    m_env["LD_LIBRARY_PATH"] = nccl.parent_path().string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(
        report_lines(result.out),
        expected_report(
            {"Colossal-AI version: 0.2.5", "PyTorch version: 2.1.0", "System CUDA version: 12.1",
             "CUDA version required by PyTorch: 12.1", "Driver CUDA version: 12.4", "GPUs: 2",
             "GPU 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)",
             "GPU 1: NVIDIA H100 80GB HBM3 (compute capability 9.0)", venv_python_line(),
             "CUDA home: " + home, "NCCL version used by PyTorch: 2.18.1 (nvidia-nccl-cu12)",
             "System NCCL version: 2.19.3 (" + nccl.string() + ")",
             "Shared memory (/dev/shm): <size>"},
            {"Found AOT CUDA Extension: \u2713", "PyTorch version used for AOT compilation: 2.1",
             "CUDA version used for AOT compilation: 12.1"},
            {"PyTorch version match: \u2713", "System and PyTorch CUDA version match: \u2713",
             "System and Colossal-AI CUDA version match: \u2713",
             "Driver supports PyTorch CUDA version: \u2713",
             "PyTorch CUDA supports every GPU: \u2713"}));

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    json gpu = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}};
    // The machine's /dev/shm size: a decimal string, compared apart.
    EXPECT_TRUE(report["environment"]["shm_bytes"].is_string()) << report;
    report["environment"]["shm_bytes"] = "<size>";
    EXPECT_EQ(report, json({{"schema_version", 3},
                            {"environment",
                             {{"colossalai_version", "0.2.5"},
                              {"torch_version", "2.1.0"},
                              {"system_cuda_version", "12.1"},
                              {"torch_cuda_version", "12.1"},
                              {"driver_cuda_version", "12.4"},
                              {"gpu_count", "2"},
                              {"gpus", json::array({gpu, gpu})},
                              {"python", venv().python.string()},
                              {"python_version", venv().python_version},
                              {"cuda_home", home},
                              {"torch_nccl_version", "2.18.1"},
                              {"torch_nccl_source", "nvidia-nccl-cu12"},
                              {"system_nccl_version", "2.19.3"},
                              {"system_nccl_library", nccl.string()},
                              {"shm_bytes", "<size>"}}},
                            {"aot",
                             {{"extension_found", true},
                              {"torch_version", "2.1"},
                              {"cuda_version", "12.1"},
                              {"ninja", nullptr},
                              {"cxx", nullptr}}},
                            {"compatibility",
                             {{"torch_version_match", true},
                              {"system_torch_cuda_match", true},
                              {"system_colossalai_cuda_match", true},
                              {"driver_supports_torch_cuda", true},
                              {"torch_cuda_supports_gpus", true},
                              {"jit_ninja", nullptr},
                              {"jit_compiler", nullptr},
                              {"jit_nvcc_matches_torch", nullptr},
                              {"shm_sufficient", true}}},
                            {"ok", true},
                            {"warnings", json::array()},
                            {"advice", json::array()}}));
}

TEST_F(CheckPython, CpuOnlyPyTorchIsAMismatchWithTheSystemCuda) {
    install_torch(torch_cpu);
    m_env["CUDA_HOME"] = cuda_home("cuda", nvcc_script("13.0")).string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(
        report_lines(result.out),
        expected_report(
            {"Colossal-AI version: N/A", "PyTorch version: 1.13.0a0", "System CUDA version: 13.0",
             "CUDA version required by PyTorch: N/A", "Driver CUDA version: N/A", "GPUs: N/A",
             venv_python_line(), "CUDA home: " + (scratch() / "cuda").string(),
             "NCCL version used by PyTorch: N/A", "System NCCL version: N/A",
             "Shared memory (/dev/shm): <size>"},
            {"Found AOT CUDA Extension: N/A", "PyTorch version used for AOT compilation: N/A",
             "CUDA version used for AOT compilation: N/A"},
            {"PyTorch version match: N/A", "System and PyTorch CUDA version match: x",
             "System and Colossal-AI CUDA version match: N/A",
             "Driver supports PyTorch CUDA version: N/A", "PyTorch CUDA supports every GPU: N/A"}));

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 1);
    EXPECT_TRUE(report["environment"]["shm_bytes"].is_string()) << report;
    report["environment"].erase("shm_bytes");
    EXPECT_EQ(report["environment"], json({{"colossalai_version", nullptr},
                                           {"torch_version", "1.13.0a0"},
                                           {"system_cuda_version", "13.0"},
                                           {"torch_cuda_version", nullptr},
                                           {"driver_cuda_version", nullptr},
                                           {"gpu_count", nullptr},
                                           {"gpus", nullptr},
                                           {"python", venv().python.string()},
                                           {"python_version", venv().python_version},
                                           {"cuda_home", (scratch() / "cuda").string()},
                                           {"torch_nccl_version", nullptr},
                                           {"torch_nccl_source", nullptr},
                                           {"system_nccl_version", nullptr},
                                           {"system_nccl_library", nullptr}}));
    EXPECT_EQ(report["aot"], json({{"extension_found", nullptr},
                                   {"torch_version", nullptr},
                                   {"cuda_version", nullptr},
                                   {"ninja", nullptr},
                                   {"cxx", nullptr}}));
    EXPECT_EQ(report["compatibility"], original_checks(nullptr, false, nullptr, nullptr));
    EXPECT_EQ(report["advice"],
              json::array({{{"section", "compatibility"},
                            {"text", "PyTorch 1.13.0a0 is a CPU-only build: install one built for "
                                     "the system CUDA 13.0: pip install torch --index-url "
                                     "https://download.pytorch.org/whl/cu130."}}}));
    EXPECT_EQ(report["ok"], false);
}

TEST_F(CheckPython, AotVersionsFromTheLocalLabel) {
    install_torch("__version__ = '1.11.0+cu113'\ncuda = '11.3'\n");
    install_colossalai("__version__ = '0.1.5+torch1.11cu11.3'\n",
                       {"colossal_C.cpython-38-x86_64-linux-gnu.so"});
    m_env["CUDA_HOME"] = cuda_home("cuda-11.3", nvcc_script("11.3")).string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[2], "Colossal-AI version: 0.1.5");
    EXPECT_EQ(lines[3], "PyTorch version: 1.11.0");
    EXPECT_EQ(lines[14], "Found AOT CUDA Extension: \u2713");
    EXPECT_EQ(lines[15], "PyTorch version used for AOT compilation: 1.11");
    EXPECT_EQ(lines[16], "CUDA version used for AOT compilation: 11.3");
    EXPECT_EQ(lines[18], "PyTorch version match: \u2713");
    EXPECT_EQ(lines[19], "System and PyTorch CUDA version match: \u2713");
    EXPECT_EQ(lines[20], "System and Colossal-AI CUDA version match: \u2713");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["colossalai_version"], "0.1.5");
    EXPECT_EQ(report["aot"], json({{"extension_found", true},
                                   {"torch_version", "1.11"},
                                   {"cuda_version", "11.3"},
                                   {"ninja", nullptr},
                                   {"cxx", nullptr}}));
}

TEST_F(CheckPython, AotVersionsFromSeparateAssignmentsMismatch) {
    install_torch(torch_2_1);
    install_colossalai("__version__ = '0.2.0'\ntorch = \"1.13\"\ncuda = \"11.7\"\n", {extension});
    m_env["CUDA_HOME"] = cuda_home("cuda-12.1", nvcc_script("12.1")).string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1);
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[15], "PyTorch version used for AOT compilation: 1.13");
    EXPECT_EQ(lines[16], "CUDA version used for AOT compilation: 11.7");
    EXPECT_EQ(lines[18], "PyTorch version match: x");
    EXPECT_EQ(lines[19], "System and PyTorch CUDA version match: \u2713");
    EXPECT_EQ(lines[20], "System and Colossal-AI CUDA version match: x");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 1);
    EXPECT_EQ(report["compatibility"], original_checks(false, true, false, nullptr));
}

TEST_F(CheckPython, ColossalaiWithoutCompiledExtensionNeedsTheRuntimeBuildsTools) {
    install_torch(torch_2_1);
    install_colossalai("__version__ = \"0.4.2\"\n", {"fused_optim.cpp", "README.md"});

    // PATH holds only the venv: no ninja, no c++, no nvcc.
    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_EQ(report_value(result.out, "Colossal-AI version"), "0.4.2");
    EXPECT_EQ(report_value(result.out, "Found AOT CUDA Extension"), "x");
    EXPECT_EQ(report_value(result.out, "PyTorch version used for AOT compilation"), "N/A");
    EXPECT_EQ(report_value(result.out, "CUDA version used for AOT compilation"), "N/A");
    EXPECT_EQ(report_value(result.out, "Ninja for the runtime build"), "x (not found in PATH)");
    EXPECT_EQ(report_value(result.out, "C++ compiler for the runtime build"),
              "x ($CXX or c++ not found in PATH)");
    EXPECT_EQ(report_value(result.out, "nvcc matches PyTorch CUDA for the runtime build"), "x");
    EXPECT_NE(result.out.find("stay calm"), std::string::npos);
    std::vector<std::string> advice = report_advice(result.out);
    ASSERT_EQ(advice.size(), 3u) << result.out;
    EXPECT_EQ(advice[0].rfind("- Install ninja (pip install ninja)", 0), 0u) << advice[0];
    EXPECT_EQ(advice[1].rfind("- Install a C++ compiler", 0), 0u) << advice[1];
    EXPECT_EQ(advice[2].rfind("- Install CUDA 12.1 and set CUDA_HOME to it", 0), 0u) << advice[2];

    // With the tools in PATH ($CXX naming the compiler) and a matching nvcc: nothing is x.
    fs::path tools = scratch() / "tools";
    write_file(tools / "ninja", "#!/bin/sh\necho 1.11.1\n", 0755);
    write_file(tools / "g++-12", "#!/bin/sh\n", 0755);
    m_env["PATH"] += ":" + tools.string();
    m_env["CXX"] = "g++-12";
    m_env["CUDA_HOME"] = cuda_home("cuda-12.1", nvcc_script("12.1")).string();
    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0) << json_result.out;
    EXPECT_EQ(report["aot"], json({{"extension_found", false},
                                   {"torch_version", nullptr},
                                   {"cuda_version", nullptr},
                                   {"ninja", (tools / "ninja").string()},
                                   {"cxx", (tools / "g++-12").string()}}));
    EXPECT_EQ(report["compatibility"]["jit_ninja"], true);
    EXPECT_EQ(report["compatibility"]["jit_compiler"], true);
    EXPECT_EQ(report["compatibility"]["jit_nvcc_matches_torch"], true);
    EXPECT_EQ(report["advice"], json::array());
}

TEST_F(CheckPython, ColossalaiVersionFromDistInfoMetadata) {
    install_colossalai("", {extension}); // no version.py
    write_file(venv().site_packages / "colossalai-0.3.6.dist-info" / "METADATA",
               "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.3.6\n\nVersion: 1.0\n");

    RunResult result = check({"-i"});
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[2], "Colossal-AI version: 0.3.6");
    EXPECT_EQ(lines[14], "Found AOT CUDA Extension: \u2713");
}

TEST_F(CheckPython, ColossalaiNotInstalled) {
    install_torch(torch_2_1);

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[2], "Colossal-AI version: N/A");
    EXPECT_EQ(lines[14], "Found AOT CUDA Extension: N/A");

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["colossalai_version"], nullptr);
    EXPECT_EQ(report["aot"]["extension_found"], nullptr);
}

TEST_F(CheckPython, NoPythonInPath) {
    m_env["PATH"] = (scratch() / "empty-bin").string();

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: no python3 or python in PATH (use "
                                       "--python PATH); Python values are N/A"});
    EXPECT_EQ(
        report_lines(result.out),
        expected_report(
            {"Colossal-AI version: N/A", "PyTorch version: N/A", "System CUDA version: N/A",
             "CUDA version required by PyTorch: N/A", "Driver CUDA version: N/A", "GPUs: N/A",
             "Python: N/A", "CUDA home: N/A", "NCCL version used by PyTorch: N/A",
             "System NCCL version: N/A", "Shared memory (/dev/shm): <size>"},
            {"Found AOT CUDA Extension: N/A", "PyTorch version used for AOT compilation: N/A",
             "CUDA version used for AOT compilation: N/A"},
            {"PyTorch version match: N/A", "System and PyTorch CUDA version match: N/A",
             "System and Colossal-AI CUDA version match: N/A",
             "Driver supports PyTorch CUDA version: N/A", "PyTorch CUDA supports every GPU: N/A"}));

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    EXPECT_EQ(report["environment"]["python"], nullptr);
    EXPECT_EQ(report["environment"]["python_version"], nullptr);
    EXPECT_EQ(report["ok"], true);
    EXPECT_EQ(report["warnings"], json::array({"no python3 or python in PATH (use --python PATH); "
                                               "Python values are N/A"}));
}

TEST_F(CheckPython, PythonThatHangsIsKilledAtTheTimeout) {
    fs::path fake = scratch() / "bin" / "python3";
    write_file(fake, "#!/bin/sh\n" + hang_command(), 0755);
    install_torch(torch_2_1); // present in the venv, but this python never says where
    m_env["PATH"] = (scratch() / "bin").string() + ":" + m_env["PATH"];
    // Long enough for the probes that do not hang, even on a loaded machine (0.3 s was not).
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "1500";

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(lines_of(result.err),
              std::vector<std::string>{"colossalai: warning: " + fake.string() +
                                       ": no answer within 1.5 s, killed; Python values are N/A"});
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[3], "PyTorch version: N/A");
    EXPECT_EQ(lines[8], "Python: " + fake.string());

    RunResult json_result;
    json report = check_json({}, &json_result);
    EXPECT_EQ(report["environment"]["python"], fake.string());
    EXPECT_EQ(report["environment"]["python_version"], nullptr);
    EXPECT_EQ(report["environment"]["torch_version"], nullptr);
    EXPECT_EQ(report["warnings"].size(), 1u);
}

TEST_F(CheckPython, ExplicitPythonWinsOverPath) {
    install_torch(torch_2_1);
    m_env["PATH"] = (scratch() / "empty-bin").string();

    RunResult result = check({"-i", "--python", venv().python.string()});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[3], "PyTorch version: 2.1.0");
    EXPECT_EQ(lines[5], "CUDA version required by PyTorch: 12.1");
    EXPECT_EQ(lines[8], venv_python_line());
}

TEST_F(CheckPython, EditableInstallIsFoundThroughItsFinder) {
    // `pip install -e .` with setuptools >= 64 (PEP 660): only a .pth that imports a finder
    // module, the finder with its MAPPING, and the dist-info are in site-packages.
    fs::path source = scratch() / "ColossalAI" / "colossalai";
    write_file(source / "__init__.py", "");
    write_file(source / "_C" / extension, "");
    const fs::path& site = venv().site_packages;
    write_file(site / "__editable__.colossalai-0.4.0.pth",
               "import __editable___colossalai_0_4_0_finder; "
               "__editable___colossalai_0_4_0_finder.install()\n");
    write_file(site / "__editable___colossalai_0_4_0_finder.py",
               "import sys\nMAPPING: dict[str, str] = {'colossalai': '" + source.string() +
                   "'}\nNAMESPACES: dict[str, list[str]] = {}\n");
    write_file(site / "colossalai-0.4.0+torch2.1cu12.1.dist-info" / "METADATA",
               "Metadata-Version: 2.1\nName: colossalai\nVersion: 0.4.0+torch2.1cu12.1\n");
    install_torch(torch_2_1);

    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(report_value(result.out, "Colossal-AI version"), "0.4.0");
    EXPECT_EQ(report_value(result.out, "Found AOT CUDA Extension"), "\u2713");
    EXPECT_EQ(report_value(result.out, "PyTorch version used for AOT compilation"), "2.1");
    EXPECT_EQ(report_value(result.out, "PyTorch version match"), "\u2713");
}

TEST_F(CheckPython, LegacyEditableInstallIsFoundThroughItsPthPath) {
    // `setup.py develop` / older pip: a .pth line with the source directory (and an egg-link).
    fs::path checkout = scratch() / "ColossalAI";
    write_file(checkout / "colossalai" / "version.py", "__version__ = '0.3.6'\n");
    write_file(checkout / "colossalai" / "__init__.py", "");
    const fs::path& site = venv().site_packages;
    write_file(site / "easy-install.pth", checkout.string() + "\n");
    write_file(site / "colossalai.egg-link", checkout.string() + "\n.\n");

    RunResult result = check({"-i"});
    EXPECT_EQ(report_value(result.out, "Colossal-AI version"), "0.3.6");
    EXPECT_EQ(report_value(result.out, "Found AOT CUDA Extension"), "x");
}

TEST_F(CheckPython, RelativePythonIsShownAbsolute) {
    fs::path link = scratch() / "bin" / "python3";
    fs::create_directories(link.parent_path());
    fs::create_symlink(venv().python, link);
    RunOptions options;
    options.env = m_env;
    options.cwd = scratch();
    RunResult result = run_colossalai({"check", "-i", "--python", "./bin/python3"}, options);
    EXPECT_EQ(report_value(result.out, "Python"),
              link.string() + " (" + venv().python_version + ")");
}

} // namespace
} // namespace colossalai::test
