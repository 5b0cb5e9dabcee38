#pragma once

#include "colossalai/python/environment.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::python {

// The modules a `.pth` file imports, as site.py runs them: every line that starts with
// `import ` (or `import\t`), each `;`-separated statement of it that is itself an
// `import NAME` ("import __editable___x_finder; __editable___x_finder.install()" -> the finder).
std::vector<std::string> parse_pth_imports(std::string_view pth);

// The directory a setuptools editable finder (PEP 660, `__editable___*_finder.py`) maps the
// top-level package `package` to: the value for that key in its `MAPPING = {...}` literal.
// Python's string escapes \\, \' and \" are undone. nullopt when the finder has no such key.
std::optional<std::filesystem::path> parse_editable_mapping(std::string_view finder_source,
                                                            std::string_view package);

// Finds `package` as an editable install's import hook would, without running it: the `.pth`
// files of every search-path directory (in order, each directory's files sorted by name, as
// site.py reads them) that import an `__editable__` finder module found on the search path,
// whose MAPPING names `package`. Returns the mapped package directory if it exists.
std::optional<std::filesystem::path> find_editable_package(const Environment& environment,
                                                           std::string_view package);

// The files that search reads, so that another machine's files (a node's answer to the cluster
// check) are searched by the same rules.
struct SearchFiles {
    // The `.pth` files of a directory, sorted by name.
    std::function<std::vector<std::filesystem::path>(const std::filesystem::path&)> pth_files;
    std::function<std::optional<std::string>(const std::filesystem::path&)> read;
    // `<dir>` holds a package: an `__init__.py` or a `version.py`.
    std::function<bool(const std::filesystem::path&)> is_package_dir;
};
std::optional<std::filesystem::path>
find_editable_package(const std::vector<std::filesystem::path>& search_path,
                      std::string_view package, const SearchFiles& files);

// A project's installed metadata: `<name>-<version>.dist-info` in a search-path directory.
struct Distribution {
    std::filesystem::path dist_info;    // the .dist-info directory
    std::string name;                   // as written in the directory name ("nvidia_nccl_cu12")
    std::optional<std::string> version; // METADATA's `Version:`
};

// The project name as dist-info directories write it (PEP 503 normalised, `_` for runs of
// `-`, `_` and `.`, lower case): "nvidia-nccl-cu12" -> "nvidia_nccl_cu12".
std::string normalize_project_name(std::string_view name);

// The first `.dist-info` directory on the search path whose normalised project name satisfies
// `matches` (given the normalised name).
std::optional<Distribution>
find_distribution(const Environment& environment,
                  const std::function<bool(std::string_view name)>& matches);

} // namespace colossalai::python
