#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace colossalai::util {

// A dotted release version as PyTorch, CUDA and Colossal-AI write them: MAJOR.MINOR with an
// optional third component. Only the numeric lead of the third component is kept for ordering
// (`1.13.0a0` has patch 0); a two-component version has no patch.
struct Version {
    int major = 0;
    int minor = 0;
    std::optional<int> patch;

    // Orders by major, minor, then patch (a missing patch orders before any patch).
    auto operator<=>(const Version&) const = default;
};

// Parses "12", "12.4", "12.10", "2.1.0", "1.13.0a0", "2.1.0+cu121", "v12.4".
// Returns nullopt for text that does not start with a number ("", "None", "abc", "1..2").
// A single number means MAJOR.0.
std::optional<Version> parse_version(std::string_view text);

// The compatibility rule of `check`: equal major and minor; the patch is ignored.
bool compatible(const Version& a, const Version& b);

// Normalises a PyTorch or Colossal-AI version string for display: drops a `+local` suffix and
// keeps at most three dot-separated components (`2.1.0+cu121` -> `2.1.0`,
// `1.13.0a0+gitabc` -> `1.13.0a0`, `2.1.0.post1` -> `2.1.0`).
std::string normalize_release(std::string_view text);

} // namespace colossalai::util
