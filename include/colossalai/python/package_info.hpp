#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace colossalai::python {

// The value of a top-level assignment in a Python source file.
struct Assignment {
    bool found = false;               // the name is assigned at top level
    std::optional<std::string> value; // the string literal; nullopt for `None` or non-literals
    bool none = false;                // the value is the literal `None`
};

// Finds the last top-level `name = '...'` (or `name: Type = "..."`, or `= None`) in `source`.
// Only plain string literals (single or double quotes, no escapes interpreted) count as values.
Assignment find_assignment(std::string_view source, std::string_view name);

// What torch/version.py says.
struct TorchInfo {
    std::optional<std::string> version; // __version__, raw ("2.1.0+cu121")
    std::optional<std::string> cuda;    // cuda, nullopt for a CPU build (`cuda = None`)
    bool cpu_only = false;              // `cuda = None` was read: a CPU-only build
};
TorchInfo parse_torch_version_py(std::string_view source);

// What colossalai/version.py (and the dist-info metadata) says.
struct ColossalaiInfo {
    std::optional<std::string> version;   // __version__, raw ("0.1.5+torch1.11cu11.3")
    std::optional<std::string> aot_torch; // torch version used for the AOT build ("1.11")
    std::optional<std::string> aot_cuda;  // CUDA version used for the AOT build ("11.3")
};

// Reads both historic shapes: a local label `+torch1.11cu11.3` in __version__, or separate
// `torch = "1.13"` / `cuda = "11.7"` assignments (the label wins when both exist).
ColossalaiInfo parse_colossalai_version_py(std::string_view source);

// Splits a local version label `torch1.11cu11.3` (also `cu113`) into torch and CUDA versions.
void parse_aot_label(std::string_view version, ColossalaiInfo& info);

// The `Version:` field of a dist-info METADATA file.
std::optional<std::string> parse_metadata_version(std::string_view metadata);

// Reads `<package_dir>/version.py`; falls back to the `Version:` of a
// `<name>-*.dist-info/METADATA` beside the package directory.
ColossalaiInfo read_colossalai_info(const std::filesystem::path& package_dir);
TorchInfo read_torch_info(const std::filesystem::path& package_dir);

} // namespace colossalai::python
