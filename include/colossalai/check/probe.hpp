#pragma once

#include "colossalai/check/cuda.hpp"
#include "colossalai/check/facts.hpp"
#include "colossalai/check/options.hpp"
#include "colossalai/python/shim.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::check {

// Everything the probes need from the command line and the environment.
struct ProbeSettings {
    std::optional<std::string> python; // --python
    // Where the interpreter is looked up: PATH (= cuda.path_env), the current directory and the
    // variables version managers read (python/shim.hpp).
    python::Lookup python_lookup;
    CudaHomeInputs cuda;
    std::string driver_library = "libcuda.so.1"; // COLOSSALAI_CUDA_DRIVER_LIBRARY
    std::chrono::milliseconds timeout{10000};    // COLOSSALAI_PROBE_TIMEOUT_MS, per probe
    // Where the system's libnccl is looked for: $LD_LIBRARY_PATH, <CUDA home>/lib64, then these
    // (COLOSSALAI_SYSTEM_LIBRARY_DIRS, colon-separated; default the distributions' directories).
    std::vector<std::filesystem::path> ld_library_path;
    std::vector<std::filesystem::path> system_library_dirs;
    std::optional<std::string> cxx_env; // $CXX
    std::filesystem::path shm_path = "/dev/shm";
};

using GetEnv = std::function<std::optional<std::string>(const std::string& name)>;

// Reads the settings from the options and the environment (`getenv`). Throws a usage error for a
// COLOSSALAI_PROBE_TIMEOUT_MS that is not a positive whole number of milliseconds.
ProbeSettings read_settings(const Options& options, const GetEnv& getenv);

// Runs every probe (driver, nvcc and the Python interpreter concurrently, then file reads) and
// returns the facts. Throws a usage error for a --python that is not an executable. From then on
// a stop signal kills the probes still running (exec::StopCapturesOnSignal), then the check.
Facts gather_facts(const ProbeSettings& settings);

} // namespace colossalai::check
