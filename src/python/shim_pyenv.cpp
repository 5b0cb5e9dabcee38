// The pyenv part of resolve_shim() (shim.hpp), as that tool's scripts do it.
#include "shim_resolvers.hpp"

#include "colossalai/util/file.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

namespace colossalai::python::shim_detail {

namespace fs = std::filesystem;

namespace {

// `root`/.python-version or that of a parent directory, as pyenv-version-file walks up.
std::optional<fs::path> find_upwards(fs::path directory, const std::string& name) {
    directory = directory.lexically_normal();
    while (true) {
        fs::path candidate = directory / name;
        if (regular_file_exists(candidate)) {
            return candidate;
        }
        if (!directory.has_relative_path()) {
            return std::nullopt; // checked "/" itself
        }
        directory = directory.parent_path();
    }
}

struct VersionFile {
    std::vector<std::string> versions;
    std::optional<std::string> unusual; // a word pyenv would vet against path traversal
};

// pyenv-version-file-read: the first word of each line, skipping blank lines and `#` comments.
VersionFile read_pyenv_version_file(const fs::path& file) {
    VersionFile read;
    std::optional<std::string> text = util::read_file(file, version_file_bytes);
    if (!text) {
        return read;
    }
    for (std::string_view line : util::split_lines(*text)) {
        line = util::trim(line);
        std::string_view word = line.substr(0, line.find_first_of(" \t\r\v\f"));
        if (word.empty() || word.front() == '#') {
            continue;
        }
        if (word == ".." || word.find('/') != std::string_view::npos) {
            read.unusual = fmt::format("{}: version '{}' names a path", file.string(),
                                       util::escape_for_message(word));
            return read;
        }
        read.versions.emplace_back(word);
    }
    return read;
}

// Numbers separated by dots ("3", "11.7"): what a version prefix may be completed with.
std::optional<std::vector<long>> numeric_parts(std::string_view text) {
    std::vector<long> parts;
    for (const std::string& part : util::split(text, '.')) {
        if (part.empty() || part.size() > 9 ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            return std::nullopt;
        }
        parts.push_back(*util::parse_integer<long>(part));
    }
    return parts;
}

enum class PrefixMatch { none, found, unusual };

// pyenv-latest -b: the highest installed version `prefix.<numbers>`. Candidates pyenv would
// sort with its own rules (`3.11-dev`, `3.11.9t`, `3.11.0rc1`) make the answer unusual.
PrefixMatch latest_installed(const fs::path& versions_dir, const std::string& prefix,
                             std::string& chosen) {
    std::error_code ec;
    std::optional<std::vector<long>> best;
    for (const auto& entry : fs::directory_iterator(versions_dir, ec)) {
        std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() + 1 || !util::starts_with(name, prefix) ||
            (name[prefix.size()] != '.' && name[prefix.size()] != '-')) {
            continue;
        }
        auto parts = name[prefix.size()] == '.' ? numeric_parts(name.substr(prefix.size() + 1))
                                                : std::nullopt;
        if (!parts) {
            return PrefixMatch::unusual;
        }
        if (!best || *parts > *best) {
            best = parts;
            chosen = name;
        }
    }
    return best ? PrefixMatch::found : PrefixMatch::none;
}

// Any hook script pyenv would source for `version-name` or `exec`: they may change the answer.
// (`which` hooks, such as pyenv-virtualenv's, act only when no selected version has the command,
// a case left to the shim anyway.)
std::optional<fs::path> pyenv_hook(const fs::path& root, const fs::path& install_prefix,
                                   const Lookup& lookup) {
    std::vector<fs::path> hook_dirs;
    if (auto path = variable(lookup, "PYENV_HOOK_PATH")) {
        for (const std::string& dir : util::split(*path, ':')) {
            if (!dir.empty()) {
                hook_dirs.emplace_back(dir);
            }
        }
    }
    hook_dirs.push_back(root / "pyenv.d");
    hook_dirs.push_back(install_prefix / "pyenv.d");
    for (const char* dir :
         {"/usr/etc/pyenv.d", "/usr/local/etc/pyenv.d", "/etc/pyenv.d", "/usr/lib/pyenv/hooks"}) {
        hook_dirs.emplace_back(dir);
    }
    std::error_code ec;
    for (const auto& plugin : fs::directory_iterator(root / "plugins", ec)) {
        hook_dirs.push_back(plugin.path() / "etc" / "pyenv.d");
    }
    for (const fs::path& dir : hook_dirs) {
        for (const char* command : {"version-name", "exec"}) {
            std::error_code list_ec;
            for (const auto& script : fs::directory_iterator(dir / command, list_ec)) {
                // pyenv's own pip-rehash.bash, in every installation, acts on pip only.
                if (script.path().extension() == ".bash" &&
                    script.path().filename() != "pip-rehash.bash") {
                    return script.path();
                }
            }
        }
    }
    return std::nullopt;
}

} // namespace

ShimResolution resolve_pyenv(const fs::path& found, const fs::path& root,
                             const fs::path& install_prefix, const Lookup& lookup) {
    const std::string command = found.filename().string();
    if (found.parent_path().lexically_normal() != (root / "shims").lexically_normal()) {
        return run_shim("a pyenv shim outside $PYENV_ROOT/shims");
    }
    for (const std::string& name :
         {std::string("_PYENV_SHIM_PATHS_"), std::string("PYENV_DEBUG")}) {
        for (const auto& [key, value] : lookup.variables) {
            if (util::starts_with(key, name) && !value.empty()) {
                return run_shim(fmt::format("{} is set", key));
            }
        }
    }
    if (auto hook = pyenv_hook(root, install_prefix, lookup)) {
        return run_shim(fmt::format("pyenv hook {}", hook->string()));
    }

    // 1. The selection and where it comes from.
    std::string selected;
    std::string origin;
    if (auto version = non_empty(lookup, "PYENV_VERSION")) {
        selected = *version;
        origin = "PYENV_VERSION";
    } else {
        fs::path cwd = lookup.working_directory;
        fs::path pyenv_dir = cwd;
        if (auto dir = non_empty(lookup, "PYENV_DIR")) {
            pyenv_dir = cwd / *dir; // an absolute PYENV_DIR replaces cwd
            if (!directory_exists(pyenv_dir)) {
                return run_shim("PYENV_DIR is not a directory");
            }
        }
        std::optional<fs::path> file = find_upwards(pyenv_dir, ".python-version");
        if (!file && pyenv_dir != cwd) {
            file = find_upwards(cwd, ".python-version");
        }
        fs::path chosen = file ? *file : root / "version";
        VersionFile read = read_pyenv_version_file(chosen);
        if (read.unusual) {
            return run_shim(*read.unusual);
        }
        selected = fmt::format("{}", fmt::join(read.versions, ":"));
        origin = chosen.string();
    }
    if (selected.empty()) {
        selected = "system";
    }

    // 2. Each name to an installed version.
    const fs::path versions_dir = root / "versions";
    std::vector<std::string> versions;
    for (const std::string& name : util::split(selected, ':')) {
        std::string normalised = util::starts_with(name, "python-") ? name.substr(7) : name;
        std::string latest;
        if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
            return run_shim(
                fmt::format("version '{}' from {}", util::escape_for_message(name), origin));
        }
        if (name == "system" || directory_exists(versions_dir / name)) {
            versions.push_back(name);
        } else if (directory_exists(versions_dir / normalised)) {
            versions.push_back(normalised);
        } else {
            PrefixMatch match = latest_installed(versions_dir, name, latest);
            if (match == PrefixMatch::none && normalised != name) {
                match = latest_installed(versions_dir, normalised, latest);
            }
            if (match != PrefixMatch::found) {
                // Not installed: pyenv 2.6 quietly falls back to the system Python, older
                // versions fail with "version `X' is not installed"; let pyenv say which.
                return run_shim(fmt::format("pyenv version '{}' (set by {}) is not installed",
                                            util::escape_for_message(name), origin));
            }
            versions.push_back(latest);
        }
    }

    // 3. The first version that has the command.
    for (const std::string& version : versions) {
        std::optional<fs::path> interpreter;
        if (version == "system") {
            interpreter = util::find_in_path(
                command, path_without(lookup.path_env, root / "shims", variable(lookup, "HOME")));
        } else if (fs::path candidate = versions_dir / version / "bin" / command;
                   util::is_executable_file(candidate)) {
            interpreter = candidate;
        }
        if (interpreter) {
            return resolved(*interpreter, fmt::format("pyenv {} (set by {})", selected, origin));
        }
    }
    return run_shim(fmt::format("no selected pyenv version ({}) has {}", selected, command));
}

} // namespace colossalai::python::shim_detail
