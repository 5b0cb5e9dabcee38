#include "colossalai/check/rules.hpp"

#include "colossalai/check/architectures.hpp"
#include "colossalai/check/system.hpp"
#include "colossalai/util/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace colossalai::check {

namespace {

std::optional<util::Version> parsed(const std::optional<std::string>& text) {
    if (!text) {
        return std::nullopt;
    }
    return util::parse_version(*text);
}

// N/A unless both versions are known; else major.minor equal.
std::optional<bool> match(const std::optional<std::string>& a,
                          const std::optional<std::string>& b) {
    auto va = parsed(a);
    auto vb = parsed(b);
    if (!va || !vb) {
        return std::nullopt;
    }
    return util::compatible(*va, *vb);
}

} // namespace

Checks evaluate(const Facts& facts) {
    Checks checks;
    checks.torch_version_match = match(facts.torch_version, facts.aot_torch);

    if (parsed(facts.system_cuda)) {
        checks.system_torch_cuda_match = facts.torch_cpu_only
                                             ? std::optional<bool>(false)
                                             : match(facts.system_cuda, facts.torch_cuda);
    }

    checks.system_colossalai_cuda_match = match(facts.system_cuda, facts.aot_cuda);

    auto driver = parsed(facts.driver_cuda);
    auto torch_cuda = parsed(facts.torch_cuda);
    if (driver && torch_cuda) {
        // The driver runs every CUDA up to its own version; the patch is irrelevant here.
        checks.driver_supports_torch_cuda = std::make_pair(driver->major, driver->minor) >=
                                            std::make_pair(torch_cuda->major, torch_cuda->minor);
    }

    if (torch_cuda && facts.gpus && !facts.gpus->empty()) {
        bool all_known = true;
        for (const Gpu& gpu : *facts.gpus) {
            auto supported =
                gpu.compute_capability
                    ? cuda_supports_architecture(*facts.torch_cuda, *gpu.compute_capability)
                    : std::nullopt;
            if (supported == false) {
                checks.torch_cuda_supports_gpus = false;
            }
            all_known = all_known && supported.has_value();
        }
        if (!checks.torch_cuda_supports_gpus && all_known) {
            checks.torch_cuda_supports_gpus = true;
        }
    }

    if (facts.aot_extension == false) {
        checks.jit_ninja = facts.ninja.has_value();
        checks.jit_compiler = facts.cxx.has_value();
        if (torch_cuda) {
            checks.jit_nvcc_matches_torch =
                parsed(facts.system_cuda) ? match(facts.system_cuda, facts.torch_cuda) : false;
        }
    }

    if (facts.shm_bytes && facts.gpus) {
        checks.shm_sufficient = facts.gpus->size() <= 1 || *facts.shm_bytes >= min_shm_bytes;
    }
    return checks;
}

int exit_status(const Checks& checks) {
    for (const std::optional<bool>& check :
         {checks.torch_version_match, checks.system_torch_cuda_match,
          checks.system_colossalai_cuda_match, checks.driver_supports_torch_cuda,
          checks.torch_cuda_supports_gpus, checks.jit_ninja, checks.jit_compiler,
          checks.jit_nvcc_matches_torch}) {
        if (check == false) {
            return 1;
        }
    }
    return 0;
}

namespace {

std::string text_or(const std::optional<std::string>& text, const char* fallback) {
    return text && !text->empty() ? *text : fallback;
}

// PyTorch's wheel index for a CUDA release: "12.1" -> "cu121".
std::string wheel_tag(const std::string& cuda) {
    auto version = util::parse_version(cuda);
    return version ? fmt::format("cu{}{}", version->major, version->minor) : "cu" + cuda;
}

std::string torch_for_cuda(const std::string& cuda) {
    return fmt::format("pip install torch --index-url https://download.pytorch.org/whl/{}",
                       wheel_tag(cuda));
}

constexpr const char* rebuild_kernels =
    "BUILD_EXT=1 pip install --no-cache-dir --force-reinstall colossalai";

void add(std::vector<Advice>& advice, Section section, std::string text) {
    for (const Advice& existing : advice) {
        if (existing.text == text) {
            return;
        }
    }
    advice.push_back({section, std::move(text)});
}

void environment_advice(const Facts& facts, const Checks& checks, std::vector<Advice>& advice) {
    if (!facts.python) {
        add(advice, Section::environment,
            "No Python found: activate the training environment or pass --python PATH.");
    }
    if (facts.cuda_home && !facts.system_cuda) {
        add(advice, Section::environment,
            fmt::format("No working nvcc in the CUDA home {}: set CUDA_HOME to the CUDA "
                        "toolkit's directory (the one holding bin/nvcc){}.",
                        *facts.cuda_home,
                        facts.torch_cuda
                            ? fmt::format(", CUDA {} for this PyTorch", *facts.torch_cuda)
                            : ""));
    }
    if (checks.shm_sufficient == false) {
        add(advice, Section::environment,
            fmt::format("/dev/shm has only {} for {} GPUs: give it at least 1 GiB (docker run "
                        "--shm-size=8g or --ipc=host; Kubernetes: an emptyDir with medium: "
                        "Memory mounted at /dev/shm).",
                        format_size(*facts.shm_bytes), facts.gpus->size()));
    }
}

void aot_advice(const Facts& facts, const Checks& checks, std::vector<Advice>& advice) {
    if (checks.jit_ninja == false) {
        add(advice, Section::aot,
            fmt::format("Install ninja (pip install ninja) to build the kernels at run time, or "
                        "install them ahead of time: {}.",
                        rebuild_kernels));
    }
    if (checks.jit_compiler == false) {
        add(advice, Section::aot,
            "Install a C++ compiler (e.g. apt install g++) or set CXX to one: the run-time build "
            "of the kernels needs it.");
    }
    if (checks.jit_nvcc_matches_torch == false && !facts.system_cuda) {
        add(advice, Section::aot,
            fmt::format("Install CUDA {0} and set CUDA_HOME to it (the directory holding "
                        "bin/nvcc): the run-time build of the kernels needs an nvcc for PyTorch's "
                        "CUDA {0}.",
                        text_or(facts.torch_cuda, "?")));
    }
}

// "GPU 0, 1 (NVIDIA B200, compute capability 10.0)" for the GPUs PyTorch's CUDA cannot run.
void gpu_advice(const Facts& facts, std::vector<Advice>& advice) {
    std::map<std::string, std::vector<size_t>> unsupported; // compute capability -> GPUs
    for (size_t i = 0; i < facts.gpus->size(); ++i) {
        const Gpu& gpu = (*facts.gpus)[i];
        if (gpu.compute_capability &&
            cuda_supports_architecture(*facts.torch_cuda, *gpu.compute_capability) == false) {
            unsupported[*gpu.compute_capability].push_back(i);
        }
    }
    for (const auto& [cc, indices] : unsupported) {
        std::string gpus = fmt::format("{}", fmt::join(indices, ", "));
        const ArchitectureSupport* row = find_architecture(cc);
        std::string what = fmt::format("GPU {} ({}, compute capability {})", gpus,
                                       (*facts.gpus)[indices.front()].name, cc);
        auto torch_cuda = util::parse_version(*facts.torch_cuda);
        auto first = util::parse_version(row->first_cuda);
        if (std::make_pair(torch_cuda->major, torch_cuda->minor) <
            std::make_pair(first->major, first->minor)) {
            add(advice, Section::compatibility,
                fmt::format("{} needs CUDA {} or newer, PyTorch has CUDA {}: install a PyTorch "
                            "built for CUDA {} or newer, e.g. {}.",
                            what, row->first_cuda, *facts.torch_cuda, row->first_cuda,
                            torch_for_cuda(row->first_cuda)));
        } else {
            add(advice, Section::compatibility,
                fmt::format("{} is not supported by CUDA {} and newer, PyTorch has CUDA {}: "
                            "install a PyTorch built for an older CUDA.",
                            what, row->removed_cuda, *facts.torch_cuda));
        }
    }
}

void compatibility_advice(const Facts& facts, const Checks& checks, std::vector<Advice>& advice) {
    std::string torch = text_or(facts.torch_version, "?");
    std::string system = text_or(facts.system_cuda, "?");
    std::string torch_cuda = text_or(facts.torch_cuda, "?");
    if (checks.torch_version_match == false) {
        add(advice, Section::compatibility,
            fmt::format("Colossal-AI's kernels were built for PyTorch {}, this is PyTorch {}: "
                        "install PyTorch {}, or rebuild the kernels for this one: {}.",
                        text_or(facts.aot_torch, "?"), torch, text_or(facts.aot_torch, "?"),
                        rebuild_kernels));
    }
    if (checks.system_torch_cuda_match == false) {
        if (facts.torch_cpu_only) {
            add(advice, Section::compatibility,
                fmt::format("PyTorch {} is a CPU-only build: install one built for the system "
                            "CUDA {}: {}.",
                            torch, system, torch_for_cuda(system)));
        } else {
            add(advice, Section::compatibility,
                fmt::format("The system CUDA {0} is not PyTorch's CUDA {1}: install a PyTorch "
                            "built for CUDA {0} ({2}), or install CUDA {1} and set CUDA_HOME to "
                            "it.",
                            system, torch_cuda, torch_for_cuda(system)));
        }
    }
    if (checks.system_colossalai_cuda_match == false) {
        add(advice, Section::compatibility,
            fmt::format("Colossal-AI's kernels were built with CUDA {}, the system CUDA is {}: "
                        "set CUDA_HOME to a CUDA {} toolkit, or rebuild the kernels with this "
                        "one: {}.",
                        text_or(facts.aot_cuda, "?"), system, text_or(facts.aot_cuda, "?"),
                        rebuild_kernels));
    }
    if (checks.driver_supports_torch_cuda == false) {
        std::string driver = text_or(facts.driver_cuda, "?");
        add(advice, Section::compatibility,
            fmt::format("The NVIDIA driver supports CUDA up to {0}, PyTorch needs {1}: update "
                        "the driver to one for CUDA {1} or newer, or install a PyTorch built for "
                        "CUDA {0} or older.",
                        driver, torch_cuda));
    }
    if (checks.torch_cuda_supports_gpus == false) {
        gpu_advice(facts, advice);
    }
}

} // namespace

std::vector<Advice> advise(const Facts& facts, const Checks& checks) {
    std::vector<Advice> advice;
    environment_advice(facts, checks, advice);
    aot_advice(facts, checks, advice);
    compatibility_advice(facts, checks, advice);
    return advice;
}

const char* section_name(Section section) {
    switch (section) {
    case Section::environment:
        return "environment";
    case Section::aot:
        return "aot";
    case Section::compatibility:
        return "compatibility";
    }
    return "environment";
}

} // namespace colossalai::check
