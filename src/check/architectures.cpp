#include "colossalai/check/architectures.hpp"

#include "colossalai/util/version.hpp"

#include <array>

namespace colossalai::check {

namespace {

// From NVIDIA's CUDA release notes (the "supported architectures" of each toolkit): the release
// that added each compute capability and the one that dropped it (CUDA 11.0 dropped sm_30,
// 12.0 Kepler sm_35/37, 13.0 Maxwell, Pascal and Volta, and renamed Thor's sm_101 to sm_110).
constexpr std::array<ArchitectureSupport, 23> all{{
    {3, 0, "4.2", "11.0"},    {3, 5, "5.0", "12.0"},    {3, 7, "6.5", "12.0"},
    {5, 0, "6.0", "13.0"},    {5, 2, "6.5", "13.0"},    {5, 3, "7.0", "13.0"},
    {6, 0, "8.0", "13.0"},    {6, 1, "8.0", "13.0"},    {6, 2, "8.0", "13.0"},
    {7, 0, "9.0", "13.0"},    {7, 2, "10.0", "13.0"},   {7, 5, "10.0", nullptr},
    {8, 0, "11.0", nullptr},  {8, 6, "11.1", nullptr},  {8, 7, "11.4", nullptr},
    {8, 9, "11.8", nullptr},  {9, 0, "11.8", nullptr},  {10, 0, "12.8", nullptr},
    {10, 1, "12.8", "13.0"},  {10, 3, "12.9", nullptr}, {11, 0, "13.0", nullptr},
    {12, 0, "12.8", nullptr}, {12, 1, "12.9", nullptr},
}};

std::pair<int, int> major_minor(const util::Version& version) {
    return {version.major, version.minor};
}

} // namespace

std::span<const ArchitectureSupport> architecture_table() {
    return all;
}

const ArchitectureSupport* find_architecture(std::string_view compute_capability) {
    auto cc = util::parse_version(compute_capability);
    if (!cc) {
        return nullptr;
    }
    for (const ArchitectureSupport& row : all) {
        if (row.major == cc->major && row.minor == cc->minor) {
            return &row;
        }
    }
    return nullptr;
}

std::optional<bool> cuda_supports_architecture(std::string_view cuda,
                                               std::string_view compute_capability) {
    auto version = util::parse_version(cuda);
    const ArchitectureSupport* row = find_architecture(compute_capability);
    if (!version || row == nullptr) {
        return std::nullopt;
    }
    auto first = util::parse_version(row->first_cuda);
    if (major_minor(*version) < major_minor(*first)) {
        return false;
    }
    if (row->removed_cuda != nullptr &&
        major_minor(*version) >= major_minor(*util::parse_version(row->removed_cuda))) {
        return false;
    }
    return true;
}

} // namespace colossalai::check
