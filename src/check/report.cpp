#include "colossalai/check/report.hpp"

#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <iterator>

namespace colossalai::check {

namespace {

std::string value(const std::optional<std::string>& text) {
    return text && !text->empty() ? *text : "N/A";
}

std::string mark(const std::optional<bool>& check) {
    if (!check) {
        return "N/A";
    }
    return *check ? "\u2713" : "x";
}

std::string section(std::string_view title) {
    return fmt::format("\n------------ {} ------------\n", title);
}

// Values may hold any byte (a CUDA_HOME with a newline): escaped, each stays on its line.
void add_line(std::string& out, std::string_view label, std::string_view text) {
    fmt::format_to(std::back_inserter(out), "{}: {}\n", label, util::escape_control_bytes(text));
}

void environment_section(std::string& out, const Facts& facts) {
    out += section("Environment");
    add_line(out, "Colossal-AI version", value(facts.colossalai_version));
    add_line(out, "PyTorch version", value(facts.torch_version));
    add_line(out, "System CUDA version", value(facts.system_cuda));
    add_line(out, "CUDA version required by PyTorch", value(facts.torch_cuda));
    // Ours, after the original lines.
    add_line(out, "Driver CUDA version", value(facts.driver_cuda));
    add_line(out, "GPUs", facts.gpus ? std::to_string(facts.gpus->size()) : "N/A");
    if (facts.gpus) {
        for (size_t i = 0; i < facts.gpus->size(); ++i) {
            const Gpu& gpu = (*facts.gpus)[i];
            std::string cc = gpu.compute_capability
                                 ? fmt::format(" (compute capability {})", *gpu.compute_capability)
                                 : "";
            add_line(out, fmt::format("GPU {}", i), gpu.name + cc);
        }
    }
    std::string python = value(facts.python);
    if (facts.python && facts.python_version) {
        python += fmt::format(" ({})", *facts.python_version);
    }
    add_line(out, "Python", python);
    add_line(out, "CUDA home", value(facts.cuda_home));
    out += "\nNote:\n"
           "1. The versions above are those of the Python environment shown (choose another with "
           "--python) and of the CUDA toolkit in the CUDA home.\n"
           "2. If the System CUDA version is N/A, set CUDA_HOME to the directory that holds "
           "bin/nvcc.\n"
           "3. If the CUDA version required by PyTorch is N/A, PyTorch was not found or is a "
           "CPU-only build (torch.version.cuda is None); see "
           "https://pytorch.org/get-started/locally/.\n"
           "4. The Driver CUDA version is the newest CUDA the installed NVIDIA driver supports; "
           "N/A when no driver could be loaded.\n";
}

void aot_section(std::string& out, const Facts& facts) {
    out += section("CUDA Extensions AOT Compilation");
    add_line(out, "Found AOT CUDA Extension", mark(facts.aot_extension));
    add_line(out, "PyTorch version used for AOT compilation", value(facts.aot_torch));
    add_line(out, "CUDA version used for AOT compilation", value(facts.aot_cuda));
    out += "\nNote:\n"
           "1. AOT (ahead-of-time) compilation of the CUDA kernels happens when Colossal-AI is "
           "installed with BUILD_EXT=1; the kernels are then in colossalai/_C/.\n"
           "2. If AOT compilation is not enabled, stay calm: the CUDA kernels are built at run "
           "time (JIT) when first used, which needs a CUDA toolkit that matches PyTorch.\n"
           "3. N/A: Colossal-AI is not installed, or its version does not record the versions "
           "used for the build.\n";
}

void compatibility_section(std::string& out, const Checks& checks) {
    out += section("Compatibility");
    add_line(out, "PyTorch version match", mark(checks.torch_version_match));
    add_line(out, "System and PyTorch CUDA version match", mark(checks.system_torch_cuda_match));
    add_line(out, "System and Colossal-AI CUDA version match",
             mark(checks.system_colossalai_cuda_match));
    add_line(out, "Driver supports PyTorch CUDA version", mark(checks.driver_supports_torch_cuda));
    out += "\nNote:\n"
           "1. Two versions match when their major and minor numbers are equal; N/A means a "
           "version is unknown.\n"
           "   - PyTorch version match: PyTorch against the PyTorch used for AOT compilation\n"
           "   - System and PyTorch CUDA version match: the system CUDA against PyTorch's CUDA "
           "(x for a CPU-only PyTorch)\n"
           "   - System and Colossal-AI CUDA version match: the system CUDA against the CUDA used "
           "for AOT compilation\n"
           "   - Driver supports PyTorch CUDA version: the driver's CUDA is at least PyTorch's\n"
           "2. The exit status is 1 when any of these is x, else 0.\n";
}

} // namespace

std::string render_text(const Facts& facts, const Checks& checks) {
    std::string out = "#### Installation Report ####\n";
    environment_section(out, facts);
    aot_section(out, facts);
    compatibility_section(out, checks);
    return out;
}

} // namespace colossalai::check
