#pragma once

#include <optional>
#include <string>
#include <vector>

namespace colossalai::check {

// One GPU as the driver reports it.
struct Gpu {
    std::string name;                              // "NVIDIA H100 80GB HBM3"
    std::optional<std::string> compute_capability; // "9.0"
};

// Everything `check` found out, before any rule is applied. A value that could not be found is
// nullopt (rendered N/A); versions are already in the form the report shows.
struct Facts {
    // The Python environment.
    std::optional<std::string> python;         // the interpreter used (path), if any was found
    std::optional<std::string> python_version; // "3.11.7", when it answered

    // PyTorch: torch/version.py.
    std::optional<std::string> torch_version; // "2.1.0" (no +local, at most three components)
    std::optional<std::string> torch_cuda;    // "12.1"; nullopt for a CPU build or unknown
    bool torch_cpu_only = false;              // version.py says `cuda = None`

    // The CUDA toolkit: <home>/bin/nvcc -V.
    std::optional<std::string> cuda_home;   // the home that was chosen
    std::optional<std::string> system_cuda; // "12.4", "12.10"

    // Colossal-AI: colossalai/version.py (or its dist-info METADATA) and colossalai/_C/.
    std::optional<std::string> colossalai_version; // "0.3.6" (no +local)
    std::optional<bool> aot_extension;             // a compiled *.so in _C/; nullopt: no package
    std::optional<std::string> aot_torch;          // "1.11"
    std::optional<std::string> aot_cuda;           // "11.3"

    // The driver: libcuda.so.1.
    std::optional<std::string> driver_cuda; // "12.4" (cuDriverGetVersion 12040)
    std::optional<std::vector<Gpu>> gpus;   // nullopt when the driver could not list them

    // One-line notes on what could not be found and why (printed on stderr).
    std::vector<std::string> warnings;
};

} // namespace colossalai::check
