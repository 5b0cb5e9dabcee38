#pragma once

#include "colossalai/check/facts.hpp"

#include <optional>

namespace colossalai::check {

// The comparisons of the report: true ✓, false x, nullopt N/A (something is unknown).
struct Checks {
    std::optional<bool> torch_version_match;          // PyTorch vs the AOT torch version
    std::optional<bool> system_torch_cuda_match;      // system CUDA vs PyTorch's CUDA
    std::optional<bool> system_colossalai_cuda_match; // system CUDA vs the AOT CUDA version
    std::optional<bool> driver_supports_torch_cuda;   // driver's CUDA >= PyTorch's CUDA
};

// Applies the compatibility rules. A version that does not parse counts as unknown.
// - torch_version_match: N/A without an AOT torch version or a PyTorch version, else
//   major.minor equal.
// - system_torch_cuda_match: N/A without a system CUDA; x for a CPU-only PyTorch; N/A when
//   PyTorch's CUDA is unknown (PyTorch not found); else major.minor equal.
// - system_colossalai_cuda_match: N/A unless both the system and the AOT CUDA are known.
// - driver_supports_torch_cuda: N/A unless both the driver's and PyTorch's CUDA are known;
//   else the driver's (major, minor) >= PyTorch's.
Checks evaluate(const Facts& facts);

// 0 when no check is false, 1 when any is.
int exit_status(const Checks& checks);

} // namespace colossalai::check
