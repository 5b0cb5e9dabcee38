#include "sample_facts.hpp"

#include "colossalai/check/report.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

// The notes are fixed text; each case spells out every other line in full.
const std::string environment_note =
    "\nNote:\n"
    "1. The versions above are those of the Python environment shown (choose another with "
    "--python) and of the CUDA toolkit in the CUDA home.\n"
    "2. If the System CUDA version is N/A, set CUDA_HOME to the directory that holds bin/nvcc.\n"
    "3. If the CUDA version required by PyTorch is N/A, PyTorch was not found or is a CPU-only "
    "build (torch.version.cuda is None); see https://pytorch.org/get-started/locally/.\n"
    "4. The Driver CUDA version is the newest CUDA the installed NVIDIA driver supports; N/A when "
    "no driver could be loaded.\n"
    "5. NCCL used by PyTorch: torch/lib/libnccl.so.X.Y.Z, else the nvidia-nccl-cu* package; the "
    "system NCCL is the libnccl found in LD_LIBRARY_PATH, the CUDA home or the system library "
    "directories.\n";

const std::string aot_note =
    "\nNote:\n"
    "1. AOT (ahead-of-time) compilation of the CUDA kernels happens when Colossal-AI is installed "
    "with BUILD_EXT=1; the kernels are then in colossalai/_C/.\n"
    "2. If AOT compilation is not enabled, stay calm: the CUDA kernels are built at run time (JIT) "
    "when first used, which needs a CUDA toolkit that matches PyTorch.\n"
    "3. N/A: Colossal-AI is not installed, or its version does not record the versions used for "
    "the build.\n"
    "4. Without an AOT build the runtime build's prerequisites are listed: ninja, a C++ compiler "
    "($CXX, else c++) and an nvcc of PyTorch's CUDA version.\n";

const std::string compatibility_note =
    "\nNote:\n"
    "1. Two versions match when their major and minor numbers are equal; N/A means a version is "
    "unknown.\n"
    "   - PyTorch version match: PyTorch against the PyTorch used for AOT compilation\n"
    "   - System and PyTorch CUDA version match: the system CUDA against PyTorch's CUDA (x for a "
    "CPU-only PyTorch)\n"
    "   - System and Colossal-AI CUDA version match: the system CUDA against the CUDA used for "
    "AOT compilation\n"
    "   - Driver supports PyTorch CUDA version: the driver's CUDA is at least PyTorch's\n"
    "   - PyTorch CUDA supports every GPU: each GPU's compute capability is one PyTorch's CUDA "
    "version can build for\n"
    "2. The exit status is 1 when any of these, or a runtime-build line, is x, else 0.\n";

TEST(RenderText, EverythingKnownAndCompatible) {
    Facts facts = sample::everything_known();
    Checks checks = sample::checks(true, true, true, true);
    EXPECT_EQ(render_text(facts, checks),
              "#### Installation Report ####\n"
              "\n------------ Environment ------------\n"
              "Colossal-AI version: 0.2.5\n"
              "PyTorch version: 1.13.1\n"
              "System CUDA version: 11.7\n"
              "CUDA version required by PyTorch: 11.7\n"
              "Driver CUDA version: 12.4\n"
              "GPUs: 2\n"
              "GPU 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)\n"
              "GPU 1: NVIDIA A100-SXM4-40GB\n"
              "Python: /venv/bin/python3 (3.10.12)\n"
              "CUDA home: /usr/local/cuda-11.7\n"
              "NCCL version used by PyTorch: N/A\n"
              "System NCCL version: N/A\n"
              "Shared memory (/dev/shm): N/A\n" +
                  environment_note +
                  "\n------------ CUDA Extensions AOT Compilation ------------\n"
                  "Found AOT CUDA Extension: \u2713\n"
                  "PyTorch version used for AOT compilation: 1.13\n"
                  "CUDA version used for AOT compilation: 11.7\n" +
                  aot_note +
                  "\n------------ Compatibility ------------\n"
                  "PyTorch version match: \u2713\n"
                  "System and PyTorch CUDA version match: \u2713\n"
                  "System and Colossal-AI CUDA version match: \u2713\n"
                  "Driver supports PyTorch CUDA version: \u2713\n"
                  "PyTorch CUDA supports every GPU: N/A\n" +
                  compatibility_note);
}

TEST(RenderText, NothingFound) {
    EXPECT_EQ(render_text(Facts{}, Checks{}),
              "#### Installation Report ####\n"
              "\n------------ Environment ------------\n"
              "Colossal-AI version: N/A\n"
              "PyTorch version: N/A\n"
              "System CUDA version: N/A\n"
              "CUDA version required by PyTorch: N/A\n"
              "Driver CUDA version: N/A\n"
              "GPUs: N/A\n"
              "Python: N/A\n"
              "CUDA home: N/A\n"
              "NCCL version used by PyTorch: N/A\n"
              "System NCCL version: N/A\n"
              "Shared memory (/dev/shm): N/A\n" +
                  environment_note +
                  "\nAdvice:\n"
                  "- No Python found: activate the training environment or pass --python PATH.\n" +
                  "\n------------ CUDA Extensions AOT Compilation ------------\n"
                  "Found AOT CUDA Extension: N/A\n"
                  "PyTorch version used for AOT compilation: N/A\n"
                  "CUDA version used for AOT compilation: N/A\n" +
                  aot_note +
                  "\n------------ Compatibility ------------\n"
                  "PyTorch version match: N/A\n"
                  "System and PyTorch CUDA version match: N/A\n"
                  "System and Colossal-AI CUDA version match: N/A\n"
                  "Driver supports PyTorch CUDA version: N/A\n"
                  "PyTorch CUDA supports every GPU: N/A\n" +
                  compatibility_note);
}

TEST(RenderText, CpuOnlyPyTorchWithoutExtensionOrGpus) {
    Facts facts;
    facts.python = "/usr/bin/python3"; // found, but its version unknown
    facts.colossalai_version = "0.4.2";
    facts.torch_version = "1.13.0a0";
    facts.torch_cpu_only = true;
    facts.cuda_home = "/usr/local/cuda";
    facts.system_cuda = "13.0";
    facts.aot_extension = false;
    facts.driver_cuda = "12.10";
    facts.gpus = std::vector<Gpu>{};
    Checks checks = sample::checks(std::nullopt, false, std::nullopt, std::nullopt);
    EXPECT_EQ(render_text(facts, checks),
              "#### Installation Report ####\n"
              "\n------------ Environment ------------\n"
              "Colossal-AI version: 0.4.2\n"
              "PyTorch version: 1.13.0a0\n"
              "System CUDA version: 13.0\n"
              "CUDA version required by PyTorch: N/A\n"
              "Driver CUDA version: 12.10\n"
              "GPUs: 0\n"
              "Python: /usr/bin/python3\n"
              "CUDA home: /usr/local/cuda\n"
              "NCCL version used by PyTorch: N/A\n"
              "System NCCL version: N/A\n"
              "Shared memory (/dev/shm): N/A\n" +
                  environment_note +
                  "\n------------ CUDA Extensions AOT Compilation ------------\n"
                  "Found AOT CUDA Extension: x\n"
                  "PyTorch version used for AOT compilation: N/A\n"
                  "CUDA version used for AOT compilation: N/A\n" +
                  aot_note +
                  "\n------------ Compatibility ------------\n"
                  "PyTorch version match: N/A\n"
                  "System and PyTorch CUDA version match: x\n"
                  "System and Colossal-AI CUDA version match: N/A\n"
                  "Driver supports PyTorch CUDA version: N/A\n"
                  "PyTorch CUDA supports every GPU: N/A\n" +
                  compatibility_note +
                  "\nAdvice:\n"
                  "- PyTorch 1.13.0a0 is a CPU-only build: install one built for the system CUDA "
                  "13.0: pip install torch --index-url https://download.pytorch.org/whl/cu130.\n");
}

TEST(RenderText, MismatchesAndAnEmptyValueShowAsSuch) {
    Facts facts;
    facts.colossalai_version = ""; // empty counts as unknown
    facts.torch_version = "2.1.0";
    facts.torch_cuda = "12.1";
    facts.system_cuda = "11.8";
    facts.aot_torch = "1.11";
    facts.aot_cuda = "11.3";
    facts.aot_extension = true;
    facts.driver_cuda = "11.8";
    facts.gpus = std::vector<Gpu>{{"Tesla V100-SXM2-16GB", "7.0"}};
    std::string text = render_text(facts, sample::checks(false, false, false, false));
    std::string environment_lines = "Colossal-AI version: N/A\n"
                                    "PyTorch version: 2.1.0\n"
                                    "System CUDA version: 11.8\n"
                                    "CUDA version required by PyTorch: 12.1\n"
                                    "Driver CUDA version: 11.8\n"
                                    "GPUs: 1\n"
                                    "GPU 0: Tesla V100-SXM2-16GB (compute capability 7.0)\n"
                                    "Python: N/A\n"
                                    "CUDA home: N/A\n"
                                    "NCCL version used by PyTorch: N/A\n"
                                    "System NCCL version: N/A\n"
                                    "Shared memory (/dev/shm): N/A\n";
    std::string compatibility_lines = "PyTorch version match: x\n"
                                      "System and PyTorch CUDA version match: x\n"
                                      "System and Colossal-AI CUDA version match: x\n"
                                      "Driver supports PyTorch CUDA version: x\n"
                                      "PyTorch CUDA supports every GPU: N/A\n";
    EXPECT_NE(text.find("------------ Environment ------------\n" + environment_lines + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("------------ Compatibility ------------\n" + compatibility_lines + "\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Found AOT CUDA Extension: \u2713\n"
                        "PyTorch version used for AOT compilation: 1.11\n"
                        "CUDA version used for AOT compilation: 11.3\n"),
              std::string::npos)
        << text;
}

TEST(RenderText, ValuesWithControlBytesStayOnTheirLine) {
    Facts facts;
    facts.cuda_home = "/opt/cuda\nSystem CUDA version: 12.4";
    facts.gpus = std::vector<Gpu>{{"GPU\t\xc3\xa9", "9.0"}};
    std::string text = render_text(facts, Checks{});
    EXPECT_NE(text.find("\nCUDA home: /opt/cuda\\x0aSystem CUDA version: 12.4\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\nGPU 0: GPU\\x09\xc3\xa9 (compute capability 9.0)\n"), std::string::npos)
        << text;
}

} // namespace
} // namespace colossalai::check
