#pragma once

#include "colossalai/check/facts.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::check {

// The comparisons of the report: true ✓, false x, nullopt N/A (something is unknown).
struct Checks {
    std::optional<bool> torch_version_match;          // PyTorch vs the AOT torch version
    std::optional<bool> system_torch_cuda_match;      // system CUDA vs PyTorch's CUDA
    std::optional<bool> system_colossalai_cuda_match; // system CUDA vs the AOT CUDA version
    std::optional<bool> driver_supports_torch_cuda;   // driver's CUDA >= PyTorch's CUDA
    std::optional<bool> torch_cuda_supports_gpus;     // every GPU's architecture (table)
    // The run-time build's prerequisites; N/A unless Colossal-AI is installed without AOT build.
    std::optional<bool> jit_ninja;
    std::optional<bool> jit_compiler;
    std::optional<bool> jit_nvcc_matches_torch;
    // Not a failure: false is a warning (under 1 GiB of /dev/shm with more than one GPU).
    std::optional<bool> shm_sufficient;
};

// /dev/shm below this size with more than one GPU is warned about (NCCL's shared-memory
// transport and DataLoader workers run out of it: "Bus error", NCCL "unhandled system error").
inline constexpr std::uint64_t min_shm_bytes = 1024ULL * 1024 * 1024;

// Applies the compatibility rules. A version that does not parse counts as unknown.
// - torch_version_match: N/A without an AOT torch version or a PyTorch version, else
//   major.minor equal.
// - system_torch_cuda_match: N/A without a system CUDA; x for a CPU-only PyTorch; N/A when
//   PyTorch's CUDA is unknown (PyTorch not found); else major.minor equal.
// - system_colossalai_cuda_match: N/A unless both the system and the AOT CUDA are known.
// - driver_supports_torch_cuda: N/A unless both the driver's and PyTorch's CUDA are known;
//   else the driver's (major, minor) >= PyTorch's.
// - torch_cuda_supports_gpus: N/A without PyTorch's CUDA or GPUs; x when any GPU's compute
//   capability is outside [first, removed) CUDA of architecture_table(); ✓ when all are inside;
//   else (an unknown architecture) N/A.
// - jit_*: N/A unless Colossal-AI is installed without an AOT build. ninja/compiler: found?
//   nvcc: N/A when PyTorch's CUDA is unknown; x without a system CUDA; else major.minor equal.
// - shm_sufficient: N/A when the size or the GPUs are unknown; false below min_shm_bytes with
//   more than one GPU.
Checks evaluate(const Facts& facts);

// 0 when no check is false, 1 when any is (shm_sufficient, a warning, does not count).
int exit_status(const Checks& checks);

// Where a piece of advice belongs in the report.
enum class Section { environment, aot, compatibility };

// One concrete thing to change, for an x or a warning.
struct Advice {
    Section section;
    std::string text;
};

// The advice for `checks` (from evaluate(facts)): one line per x or warning that says what to
// change, in report order, without repeats. Empty when nothing is wrong. Pure.
std::vector<Advice> advise(const Facts& facts, const Checks& checks);

// "environment", "aot", "compatibility" (the JSON `advice[].section`).
const char* section_name(Section section);

} // namespace colossalai::check
