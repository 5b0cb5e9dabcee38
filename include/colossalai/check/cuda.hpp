#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace colossalai::check {

// Where the CUDA toolkit is looked for; the values of the environment variables involved.
struct CudaHomeInputs {
    std::optional<std::string> cuda_home_env; // $CUDA_HOME
    std::optional<std::string> cuda_path_env; // $CUDA_PATH
    std::string path_env;                     // $PATH
    std::string default_home;                 // /usr/local/cuda (COLOSSALAI_CUDA_DEFAULT_HOME)
};

// Picks the CUDA home as PyTorch's cpp_extension does: a non-empty $CUDA_HOME, else a non-empty
// $CUDA_PATH, else the parent of the directory holding `nvcc` in $PATH, else `default_home` if
// `exists(default_home)`. nullopt when none applies.
std::optional<std::filesystem::path>
find_cuda_home(const CudaHomeInputs& inputs,
               const std::function<bool(const std::filesystem::path&)>& exists);

// The CUDA release in the output of `nvcc -V`: the token after "release" up to the comma
// ("Cuda compilation tools, release 12.4, V12.4.131" -> "12.4"), kept whole ("12.10").
// nullopt when no line has a MAJOR.MINOR release.
std::optional<std::string> parse_nvcc_release(std::string_view output);

struct SystemCuda {
    std::optional<std::filesystem::path> home;
    std::optional<std::string> version;
    std::optional<std::string> warning; // one line: why the version is unknown despite a home
};

// Runs `<home>/bin/nvcc -V` with `timeout` (its whole process group is killed after it).
// A missing, hung, crashing or unparsable nvcc gives no version and a warning.
SystemCuda probe_system_cuda(const std::optional<std::filesystem::path>& home,
                             std::chrono::milliseconds timeout);

} // namespace colossalai::check
