#include "colossalai/check/report.hpp"

#include "colossalai/check/system.hpp"
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

// "2.20.5 (nvidia-nccl-cu12)", "N/A (/usr/lib/libnccl.so.2)", "N/A".
std::string with_source(const std::optional<std::string>& version,
                        const std::optional<std::string>& source) {
    return source ? fmt::format("{} ({})", value(version), *source) : value(version);
}

void advice_block(std::string& out, const std::vector<Advice>& advice, Section section) {
    bool first = true;
    for (const Advice& item : advice) {
        if (item.section != section) {
            continue;
        }
        if (first) {
            out += "\nAdvice:\n";
            first = false;
        }
        out += "- " + util::escape_control_bytes(item.text) + "\n";
    }
}

void environment_rows(std::vector<ReportRow>& rows, const Facts& facts, const Checks& checks) {
    auto add = [&rows](std::string label, std::string text) {
        rows.push_back({Section::environment, std::move(label), std::move(text)});
    };
    add("Colossal-AI version", value(facts.colossalai_version));
    add("PyTorch version", value(facts.torch_version));
    add("System CUDA version", value(facts.system_cuda));
    add("CUDA version required by PyTorch", value(facts.torch_cuda));
    // Ours, after the original lines.
    add("Driver CUDA version", value(facts.driver_cuda));
    add("GPUs", facts.gpus ? std::to_string(facts.gpus->size()) : "N/A");
    if (facts.gpus) {
        for (size_t i = 0; i < facts.gpus->size(); ++i) {
            const Gpu& gpu = (*facts.gpus)[i];
            std::string cc = gpu.compute_capability
                                 ? fmt::format(" (compute capability {})", *gpu.compute_capability)
                                 : "";
            add(fmt::format("GPU {}", i), gpu.name + cc);
        }
    }
    std::string python = value(facts.python);
    if (facts.python && facts.python_version) {
        python += fmt::format(" ({})", *facts.python_version);
    }
    add("Python", python);
    add("CUDA home", value(facts.cuda_home));
    add("NCCL version used by PyTorch", with_source(facts.torch_nccl, facts.torch_nccl_source));
    add("System NCCL version", with_source(facts.system_nccl, facts.system_nccl_library));
    std::string shm = facts.shm_bytes ? format_size(*facts.shm_bytes) : "N/A";
    if (checks.shm_sufficient == false) {
        shm += " (warning: under 1 GiB with several GPUs)";
    }
    add("Shared memory (/dev/shm)", shm);
}

void add_rows(std::string& out, const std::vector<ReportRow>& rows, Section section) {
    for (const ReportRow& row : rows) {
        if (row.section == section) {
            add_line(out, row.label, row.value);
        }
    }
}

void environment_section(std::string& out, const std::vector<ReportRow>& rows,
                         const std::vector<Advice>& advice) {
    out += section("Environment");
    add_rows(out, rows, Section::environment);
    out += "\nNote:\n"
           "1. The versions above are those of the Python environment shown (choose another with "
           "--python) and of the CUDA toolkit in the CUDA home.\n"
           "2. If the System CUDA version is N/A, set CUDA_HOME to the directory that holds "
           "bin/nvcc.\n"
           "3. If the CUDA version required by PyTorch is N/A, PyTorch was not found or is a "
           "CPU-only build (torch.version.cuda is None); see "
           "https://pytorch.org/get-started/locally/.\n"
           "4. The Driver CUDA version is the newest CUDA the installed NVIDIA driver supports; "
           "N/A when no driver could be loaded.\n"
           "5. NCCL used by PyTorch: torch/lib/libnccl.so.X.Y.Z, else the nvidia-nccl-cu* "
           "package; the system NCCL is the libnccl found in LD_LIBRARY_PATH, the CUDA home or "
           "the system library directories.\n";
    advice_block(out, advice, Section::environment);
}

std::string tool(const std::optional<std::string>& path, const char* missing) {
    return path ? *path : fmt::format("x ({})", missing);
}

void aot_rows(std::vector<ReportRow>& rows, const Facts& facts, const Checks& checks) {
    auto add = [&rows](std::string label, std::string text) {
        rows.push_back({Section::aot, std::move(label), std::move(text)});
    };
    add("Found AOT CUDA Extension", mark(facts.aot_extension));
    add("PyTorch version used for AOT compilation", value(facts.aot_torch));
    add("CUDA version used for AOT compilation", value(facts.aot_cuda));
    if (facts.jit_tools_probed) {
        add("Ninja for the runtime build", tool(facts.ninja, "not found in PATH"));
        add("C++ compiler for the runtime build", tool(facts.cxx, "$CXX or c++ not found in PATH"));
        add("nvcc matches PyTorch CUDA for the runtime build", mark(checks.jit_nvcc_matches_torch));
    }
}

void aot_section(std::string& out, const std::vector<ReportRow>& rows,
                 const std::vector<Advice>& advice) {
    out += section("CUDA Extensions AOT Compilation");
    add_rows(out, rows, Section::aot);
    out += "\nNote:\n"
           "1. AOT (ahead-of-time) compilation of the CUDA kernels happens when Colossal-AI is "
           "installed with BUILD_EXT=1; the kernels are then in colossalai/_C/.\n"
           "2. If AOT compilation is not enabled, stay calm: the CUDA kernels are built at run "
           "time (JIT) when first used, which needs a CUDA toolkit that matches PyTorch.\n"
           "3. N/A: Colossal-AI is not installed, or its version does not record the versions "
           "used for the build.\n"
           "4. Without an AOT build the runtime build's prerequisites are listed: ninja, a C++ "
           "compiler ($CXX, else c++) and an nvcc of PyTorch's CUDA version.\n";
    advice_block(out, advice, Section::aot);
}

void compatibility_rows(std::vector<ReportRow>& rows, const Checks& checks) {
    auto add = [&rows](std::string label, const std::optional<bool>& check) {
        rows.push_back({Section::compatibility, std::move(label), mark(check)});
    };
    add("PyTorch version match", checks.torch_version_match);
    add("System and PyTorch CUDA version match", checks.system_torch_cuda_match);
    add("System and Colossal-AI CUDA version match", checks.system_colossalai_cuda_match);
    add("Driver supports PyTorch CUDA version", checks.driver_supports_torch_cuda);
    add("PyTorch CUDA supports every GPU", checks.torch_cuda_supports_gpus);
}

void compatibility_section(std::string& out, const std::vector<ReportRow>& rows,
                           const std::vector<Advice>& advice) {
    out += section("Compatibility");
    add_rows(out, rows, Section::compatibility);
    out += "\nNote:\n"
           "1. Two versions match when their major and minor numbers are equal; N/A means a "
           "version is unknown.\n"
           "   - PyTorch version match: PyTorch against the PyTorch used for AOT compilation\n"
           "   - System and PyTorch CUDA version match: the system CUDA against PyTorch's CUDA "
           "(x for a CPU-only PyTorch)\n"
           "   - System and Colossal-AI CUDA version match: the system CUDA against the CUDA used "
           "for AOT compilation\n"
           "   - Driver supports PyTorch CUDA version: the driver's CUDA is at least PyTorch's\n"
           "   - PyTorch CUDA supports every GPU: each GPU's compute capability is one PyTorch's "
           "CUDA version can build for\n"
           "2. The exit status is 1 when any of these, or a runtime-build line, is x, else 0.\n";
    advice_block(out, advice, Section::compatibility);
}

} // namespace

std::vector<ReportRow> report_rows(const Facts& facts, const Checks& checks) {
    std::vector<ReportRow> rows;
    environment_rows(rows, facts, checks);
    aot_rows(rows, facts, checks);
    compatibility_rows(rows, checks);
    return rows;
}

std::string render_text(const Facts& facts, const Checks& checks) {
    std::string out = "#### Installation Report ####\n";
    std::vector<Advice> advice = advise(facts, checks);
    std::vector<ReportRow> rows = report_rows(facts, checks);
    environment_section(out, rows, advice);
    aot_section(out, rows, advice);
    compatibility_section(out, rows, advice);
    return out;
}

} // namespace colossalai::check
