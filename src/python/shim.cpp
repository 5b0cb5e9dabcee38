#include "colossalai/python/shim.hpp"

#include "colossalai/util/fd.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

namespace colossalai::python {

namespace fs = std::filesystem;

namespace {

using Outcome = ShimResolution::Outcome;

// Shims are a few hundred bytes; reading more would only cost time on a real interpreter.
constexpr std::size_t shim_head_bytes = 4096;
// Version files are a line or two; pyenv reads at most 1024 bytes of each line.
constexpr std::size_t version_file_bytes = 64 * 1024;

ShimResolution run_shim(std::string reason) {
    ShimResolution resolution;
    resolution.outcome = Outcome::run_shim;
    resolution.reason = std::move(reason);
    return resolution;
}

ShimResolution resolved(fs::path interpreter, std::string selection) {
    ShimResolution resolution;
    resolution.outcome = Outcome::resolved;
    resolution.interpreter = std::move(interpreter);
    resolution.selection = std::move(selection);
    return resolution;
}

std::optional<std::string> variable(const Lookup& lookup, const std::string& name) {
    auto found = lookup.variables.find(name);
    if (found == lookup.variables.end()) {
        return std::nullopt;
    }
    return found->second;
}

// Set and not empty, as the tools test it (`[ -n "$PYENV_VERSION" ]`).
std::optional<std::string> non_empty(const Lookup& lookup, const std::string& name) {
    auto value = variable(lookup, name);
    if (!value || value->empty()) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> read_head(const fs::path& path) {
    util::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        return std::nullopt;
    }
    std::string head(shim_head_bytes, '\0');
    ssize_t n = ::read(fd.get(), head.data(), head.size());
    if (n < 0) {
        return std::nullopt;
    }
    head.resize(static_cast<std::size_t>(n));
    return head;
}

bool directory_exists(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool regular_file_exists(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

// The text between the first pair of double quotes after `prefix` at the start of a line.
std::optional<std::string> quoted_after(const std::vector<std::string_view>& lines,
                                        std::string_view prefix) {
    for (std::string_view line : lines) {
        if (!util::starts_with(line, prefix)) {
            continue;
        }
        std::string_view rest = line.substr(prefix.size());
        size_t end = rest.find('"');
        if (end == std::string_view::npos) {
            return std::nullopt;
        }
        return std::string(rest.substr(0, end));
    }
    return std::nullopt;
}

bool has_line(const std::vector<std::string_view>& lines, std::string_view prefix,
              std::string_view contains) {
    return std::any_of(lines.begin(), lines.end(), [&](std::string_view line) {
        return util::starts_with(line, prefix) && line.find(contains) != std::string_view::npos;
    });
}

// PATH without `removed`, as pyenv's remove_from_path does it (exact entries, `~` as $HOME).
std::string path_without(const std::string& path_env, const fs::path& removed,
                         const std::optional<std::string>& home) {
    std::string kept;
    bool first = true;
    for (std::string entry : util::split(path_env, ':')) {
        if (home && !entry.empty() && entry.front() == '~') {
            entry = *home + entry.substr(1);
        }
        if (fs::path(entry) == removed) {
            continue;
        }
        kept += (first ? "" : ":") + entry;
        first = false;
    }
    return kept;
}

// ---- pyenv ---------------------------------------------------------------------------------

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
        parts.push_back(std::stol(part));
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

// ---- asdf ----------------------------------------------------------------------------------

// The python versions of a .tool-versions file: `python 3.11.7 system`, comments after `#`.
std::optional<std::vector<std::string>> read_tool_versions(const fs::path& file) {
    std::optional<std::string> text = util::read_file(file, version_file_bytes);
    if (!text) {
        return std::nullopt;
    }
    for (std::string_view line : util::split_lines(*text)) {
        line = line.substr(0, line.find('#'));
        std::vector<std::string> words;
        for (const std::string& word : util::split(line, ' ')) {
            for (const std::string& part : util::split(word, '\t')) {
                std::string_view trimmed = util::trim(part);
                if (!trimmed.empty()) {
                    words.emplace_back(trimmed);
                }
            }
        }
        if (words.size() >= 2 && words.front() == "python") {
            return std::vector<std::string>(words.begin() + 1, words.end());
        }
    }
    return std::nullopt;
}

// `legacy_version_file = yes` in the asdf configuration: asdf also reads .python-version.
bool asdf_reads_legacy_files(const Lookup& lookup) {
    fs::path config;
    if (auto file = non_empty(lookup, "ASDF_CONFIG_FILE")) {
        config = *file;
    } else if (auto home = non_empty(lookup, "HOME")) {
        config = fs::path(*home) / ".asdfrc";
    } else {
        return false;
    }
    std::optional<std::string> text = util::read_file(config, version_file_bytes);
    if (!text) {
        return false;
    }
    for (std::string_view line : util::split_lines(*text)) {
        size_t equals = line.find('=');
        if (equals != std::string_view::npos &&
            util::trim(line.substr(0, equals)) == "legacy_version_file" &&
            util::trim(line.substr(equals + 1)) == "yes") {
            return true;
        }
    }
    return false;
}

ShimResolution resolve_asdf(const fs::path& found, const Lookup& lookup) {
    const std::string command = found.filename().string();
    fs::path data_dir;
    if (auto dir = non_empty(lookup, "ASDF_DATA_DIR")) {
        data_dir = *dir;
    } else if (auto home = non_empty(lookup, "HOME")) {
        data_dir = fs::path(*home) / ".asdf";
    }
    if (data_dir.empty() ||
        found.parent_path().lexically_normal() != (data_dir / "shims").lexically_normal()) {
        return run_shim("an asdf shim outside $ASDF_DATA_DIR/shims");
    }
    if (asdf_reads_legacy_files(lookup)) {
        return run_shim("asdf reads legacy version files (legacy_version_file = yes)");
    }

    std::vector<std::string> versions;
    std::string origin;
    if (auto version = non_empty(lookup, "ASDF_PYTHON_VERSION")) {
        for (const std::string& word : util::split(*version, ' ')) {
            if (!util::trim(word).empty()) {
                versions.emplace_back(util::trim(word));
            }
        }
        origin = "ASDF_PYTHON_VERSION";
    } else {
        std::string name =
            non_empty(lookup, "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME").value_or(".tool-versions");
        fs::path directory = lookup.working_directory.lexically_normal();
        std::vector<fs::path> candidates;
        while (true) {
            candidates.push_back(directory / name);
            if (!directory.has_relative_path()) {
                break;
            }
            directory = directory.parent_path();
        }
        if (auto home = non_empty(lookup, "HOME")) {
            candidates.push_back(fs::path(*home) / name);
        }
        for (const fs::path& file : candidates) {
            if (auto read = read_tool_versions(file)) {
                versions = *read;
                origin = file.string();
                break;
            }
        }
    }
    if (versions.empty()) {
        return run_shim("no asdf python version is set");
    }

    std::string selected = fmt::format("{}", fmt::join(versions, " "));
    for (const std::string& version : versions) {
        if (version == "system") {
            if (auto interpreter = util::find_in_path(
                    command, path_without(lookup.path_env, data_dir / "shims", std::nullopt))) {
                return resolved(*interpreter, fmt::format("asdf {} (set by {})", selected, origin));
            }
            continue;
        }
        if (version.find(':') != std::string::npos || version.find('/') != std::string::npos ||
            version == "." || version == "..") {
            return run_shim(fmt::format("asdf version '{}' (set by {})",
                                        util::escape_for_message(version), origin));
        }
        fs::path candidate = data_dir / "installs" / "python" / version / "bin" / command;
        if (util::is_executable_file(candidate)) {
            return resolved(candidate, fmt::format("asdf {} (set by {})", selected, origin));
        }
    }
    // asdf fails here ("No preset version installed for command python3"): let it say so.
    return run_shim(
        fmt::format("no asdf python version of '{}' (set by {}) is installed", selected, origin));
}

} // namespace

const std::vector<std::string_view>& shim_variables() {
    static const std::vector<std::string_view> names = {"HOME",
                                                        "PYENV_VERSION",
                                                        "PYENV_DIR",
                                                        "PYENV_DEBUG",
                                                        "PYENV_HOOK_PATH",
                                                        "_PYENV_SHIM_PATHS_PYTHON",
                                                        "_PYENV_SHIM_PATHS_PYTHON3",
                                                        "ASDF_PYTHON_VERSION",
                                                        "ASDF_DATA_DIR",
                                                        "ASDF_CONFIG_FILE",
                                                        "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME"};
    return names;
}

ShimResolution resolve_shim(const fs::path& found, const Lookup& lookup) {
    std::optional<std::string> head = read_head(found);
    if (!head || !util::starts_with(*head, "#!")) {
        return {}; // a binary, or nothing readable: not a shim
    }
    std::vector<std::string_view> lines = util::split_lines(*head);
    // pyenv-rehash's template: `export PYENV_ROOT="..."` then
    // `exec "<prefix>/libexec/pyenv" exec "$program" "$@"`.
    std::optional<std::string> root = quoted_after(lines, "export PYENV_ROOT=\"");
    std::optional<std::string> pyenv = quoted_after(lines, "exec \"");
    if (root && pyenv && has_line(lines, "exec \"", "\" exec \"$program\" \"$@\"")) {
        fs::path install_prefix = fs::path(*pyenv).parent_path().parent_path();
        return resolve_pyenv(found, *root, install_prefix, lookup);
    }
    // asdf's: `# asdf-plugin: python <version>` then `exec <asdf> exec "<command>" "$@"`.
    if (has_line(lines, "# asdf-plugin: python ", "") &&
        has_line(lines, "exec ", fmt::format(" exec \"{}\" \"$@\"", found.filename().string()))) {
        return resolve_asdf(found, lookup);
    }
    return {};
}

} // namespace colossalai::python
