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

// A step of a resolver that cannot go on: the caller runs the shim (`reason`, one line).
struct RunShim {
    std::string reason;
};

// The pure rules of each tool, apart from the files they read (tested one by one).

// A pyenv version file's text as pyenv-version-file-read reads it: the first word of each line,
// blank lines and `#` comments skipped. A word that names a path (`..`, `a/b`), which pyenv
// would vet against path traversal, stops the reading: `path_word` holds it.
struct PyenvVersionFile {
    std::vector<std::string> versions;
    std::optional<std::string> path_word;
};
PyenvVersionFile parse_pyenv_version_file(std::string_view text);

// pyenv-latest -b over the names of the installed versions: the highest `prefix.<numbers>`.
// Any candidate pyenv would sort by its own rules (`3.11-dev`, `3.11.9t`, `3.11.0rc1`) makes
// the answer unusual, whatever else is installed.
struct PrefixMatch {
    enum class Kind { none, found, unusual };
    Kind kind = Kind::none;
    std::string name; // found: the installed version chosen
};
PrefixMatch latest_with_prefix(const std::vector<std::string>& installed,
                               const std::string& prefix);

// The python versions of a .tool-versions file's text: the words after `python` on the first
// line that has any (`python 3.11.7 system`; comments after `#`); none without such a line.
std::optional<std::vector<std::string>> tool_versions_python(std::string_view text);
// Whether an .asdfrc's text says `legacy_version_file = yes` (asdf then reads .python-version).
bool asdfrc_reads_legacy_files(std::string_view text);
// The .tool-versions files asdf looks at, in order: `name` in the working directory and each
// parent up to `/`, then in `home` when it is set.
std::vector<std::filesystem::path>
tool_versions_candidates(const std::filesystem::path& working_directory, const std::string& name,
                         const std::optional<std::string>& home);

// `found` is a pyenv shim of the pyenv installed under `install_prefix` with PYENV_ROOT `root`.
ShimResolution resolve_pyenv(const std::filesystem::path& found, const std::filesystem::path& root,
                             const std::filesystem::path& install_prefix, const Lookup& lookup);
// `found` is an asdf python shim.
ShimResolution resolve_asdf(const std::filesystem::path& found, const Lookup& lookup);

} // namespace colossalai::python::shim_detail
