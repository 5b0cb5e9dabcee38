#pragma once

// The parts of resolve_shim() (shim.hpp) each version manager shares, and one resolver per
// manager: shim.cpp tells the managers' shims apart, shim_pyenv.cpp and shim_asdf.cpp follow
// each tool's own rules. Internal to the python module.

#include "colossalai/python/shim.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::python::shim_detail {

// Version files are a line or two; pyenv reads at most 1024 bytes of each line.
constexpr std::size_t version_file_bytes = 64 * 1024;

// A shim resolve_shim() cannot answer for: the caller runs it (`reason`, one line).
ShimResolution run_shim(std::string reason);
// The shim would run `interpreter`, selected as `selection` says.
ShimResolution resolved(std::filesystem::path interpreter, std::string selection);

std::optional<std::string> variable(const Lookup& lookup, const std::string& name);
// Set and not empty, as the tools test it (`[ -n "$PYENV_VERSION" ]`).
std::optional<std::string> non_empty(const Lookup& lookup, const std::string& name);

bool directory_exists(const std::filesystem::path& path);
bool regular_file_exists(const std::filesystem::path& path);

// PATH without `removed`, as pyenv's remove_from_path does it (exact entries, `~` as $HOME).
std::string path_without(const std::string& path_env, const std::filesystem::path& removed,
                         const std::optional<std::string>& home);

// `found` is a pyenv shim of the pyenv installed under `install_prefix` with PYENV_ROOT `root`.
ShimResolution resolve_pyenv(const std::filesystem::path& found, const std::filesystem::path& root,
                             const std::filesystem::path& install_prefix, const Lookup& lookup);
// `found` is an asdf python shim.
ShimResolution resolve_asdf(const std::filesystem::path& found, const Lookup& lookup);

} // namespace colossalai::python::shim_detail
