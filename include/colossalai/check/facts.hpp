#pragma once

#include <cstdint>
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

    // NCCL: the one PyTorch loads (torch/lib/libnccl.so.X.Y.Z, else the nvidia-nccl-cu*
    // package's METADATA) and the system's (a libnccl.so.X.Y.Z in the library directories).
    std::optional<std::string> torch_nccl;          // "2.20.5"
    std::optional<std::string> torch_nccl_source;   // "nvidia-nccl-cu12" or the library file
    std::optional<std::string> system_nccl;         // "2.18.3"
    std::optional<std::string> system_nccl_library; // the file found, even without a version

    // The size of /dev/shm (statvfs), which NCCL and DataLoader workers use.
    std::optional<std::uint64_t> shm_bytes;

    // The prerequisites of the run-time (JIT) build of the kernels, looked for only when
    // Colossal-AI is installed without an AOT build (jit_tools_probed): the paths, nullopt when
    // not found.
    bool jit_tools_probed = false;
    std::optional<std::string> ninja; // `ninja` in PATH
    std::optional<std::string> cxx;   // $CXX, else `c++` in PATH (as torch.utils.cpp_extension)

    // One-line notes on what could not be found and why (printed on stderr).
    std::vector<std::string> warnings;
};

} // namespace colossalai::check
