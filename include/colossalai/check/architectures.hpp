#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace colossalai::check {

// Which CUDA releases can build code for one GPU architecture (compute capability).
struct ArchitectureSupport {
    int major;
    int minor;
    const char* first_cuda;   // the first CUDA release that targets it ("11.8")
    const char* removed_cuda; // the first release that no longer does ("13.0"), or nullptr
};

// The table documented in docs/check.md ("Minimum CUDA per architecture"), in order.
std::span<const ArchitectureSupport> architecture_table();

// Whether a PyTorch built with CUDA `cuda` ("12.1") can run on a GPU of compute capability
// `compute_capability` ("9.0"): first_cuda <= cuda < removed_cuda. nullopt when either does not
// parse or the architecture is not in the table.
std::optional<bool> cuda_supports_architecture(std::string_view cuda,
                                               std::string_view compute_capability);

// The table row for `compute_capability`, if any.
const ArchitectureSupport* find_architecture(std::string_view compute_capability);

} // namespace colossalai::check
