// The pyenv part of resolve_shim() (shim.hpp), as that tool's scripts do it.
#include "shim_resolvers.hpp"

#include "colossalai/util/file.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <variant>
#include <vector>

namespace colossalai::python::shim_detail {

namespace fs = std::filesystem;

PyenvVersionFile parse_pyenv_version_file(std::string_view text) {
    PyenvVersionFile read;
    for (std::string_view line : util::split_lines(text)) {
        line = util::trim(line);
        std::string_view word = line.substr(0, line.find_first_of(" \t\r\v\f"));
        if (word.empty() || word.front() == '#') {
            continue;
        }
        if (word == ".." || word.find('/') != std::string_view::npos) {
            read.path_word = std::string(word);
            return read;
        }
        read.versions.emplace_back(word);
    }
    return read;
}

namespace {

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

} // namespace

PrefixMatch latest_with_prefix(const std::vector<std::string>& installed,
                               const std::string& prefix) {
    PrefixMatch match;
    std::optional<std::vector<long>> best;
    for (const std::string& name : installed) {
        if (name.size() <= prefix.size() + 1 || !util::starts_with(name, prefix) ||
            (name[prefix.size()] != '.' && name[prefix.size()] != '-')) {
            continue;
        }
        auto parts = name[prefix.size()] == '.' ? numeric_parts(name.substr(prefix.size() + 1))
                                                : std::nullopt;
        if (!parts) {
            return {PrefixMatch::Kind::unusual, {}};
        }
        if (!best || *parts > *best) {
            best = parts;
            match = {PrefixMatch::Kind::found, name};
        }
    }
    return match;
}

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

// The names under $PYENV_ROOT/versions (none when it cannot be listed).
std::vector<std::string> installed_pyenv_versions(const fs::path& versions_dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(versions_dir, ec)) {
        names.push_back(entry.path().filename().string());
    }
    return names;
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

// Why pyenv itself must answer before any version is read: a shim of another root, a variable
// that changes how the shim runs, or a hook script. Nothing when the rules below hold.
std::optional<std::string> pyenv_answers_itself(const fs::path& found, const fs::path& root,
                                                const fs::path& install_prefix,
                                                const Lookup& lookup) {
    if (found.parent_path().lexically_normal() != (root / "shims").lexically_normal()) {
        return "a pyenv shim outside $PYENV_ROOT/shims";
    }
    for (const std::string& name :
         {std::string("_PYENV_SHIM_PATHS_"), std::string("PYENV_DEBUG")}) {
        for (const auto& [key, value] : lookup.variables) {
            if (util::starts_with(key, name) && !value.empty()) {
                return fmt::format("{} is set", key);
            }
        }
    }
    if (auto hook = pyenv_hook(root, install_prefix, lookup)) {
        return fmt::format("pyenv hook {}", hook->string());
    }
    return std::nullopt;
}

// The `:`-separated selection and where it comes from ("system" when nothing names one).
struct PyenvSelection {
    std::string selected;
    std::string origin; // PYENV_VERSION or the version file read
};

// Step 1 (pyenv-version-name): PYENV_VERSION, else the version file chain.
std::variant<PyenvSelection, RunShim> pyenv_selection(const fs::path& root, const Lookup& lookup) {
    PyenvSelection selection;
    if (auto version = non_empty(lookup, "PYENV_VERSION")) {
        selection = {*version, "PYENV_VERSION"};
    } else {
        fs::path cwd = lookup.working_directory;
        fs::path pyenv_dir = cwd;
        if (auto dir = non_empty(lookup, "PYENV_DIR")) {
            pyenv_dir = cwd / *dir; // an absolute PYENV_DIR replaces cwd
            if (!directory_exists(pyenv_dir)) {
                return RunShim{"PYENV_DIR is not a directory"};
            }
        }
        std::optional<fs::path> file = find_upwards(pyenv_dir, ".python-version");
        if (!file && pyenv_dir != cwd) {
            file = find_upwards(cwd, ".python-version");
        }
        fs::path chosen = file ? *file : root / "version";
        std::optional<std::string> text = util::read_file(chosen, version_file_bytes);
        PyenvVersionFile words = text ? parse_pyenv_version_file(*text) : PyenvVersionFile{};
        if (words.path_word) {
            return RunShim{fmt::format("{}: version '{}' names a path", chosen.string(),
                                       util::escape_for_message(*words.path_word))};
        }
        selection = {fmt::format("{}", fmt::join(words.versions, ":")), chosen.string()};
    }
    if (selection.selected.empty()) {
        selection.selected = "system";
    }
    return selection;
}

// Step 2: each selected name to an installed version (or `system`), in order.
std::variant<std::vector<std::string>, RunShim>
installed_selection(const fs::path& versions_dir, const PyenvSelection& selection) {
    std::vector<std::string> versions;
    for (const std::string& name : util::split(selection.selected, ':')) {
        if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
            return RunShim{fmt::format("version '{}' from {}", util::escape_for_message(name),
                                       selection.origin)};
        }
        std::string normalised = util::starts_with(name, "python-") ? name.substr(7) : name;
        if (name == "system" || directory_exists(versions_dir / name)) {
            versions.push_back(name);
        } else if (directory_exists(versions_dir / normalised)) {
            versions.push_back(normalised);
        } else {
            std::vector<std::string> installed = installed_pyenv_versions(versions_dir);
            PrefixMatch match = latest_with_prefix(installed, name);
            if (match.kind == PrefixMatch::Kind::none && normalised != name) {
                match = latest_with_prefix(installed, normalised);
            }
            if (match.kind != PrefixMatch::Kind::found) {
                // Not installed: pyenv 2.6 quietly falls back to the system Python, older
                // versions fail with "version `X' is not installed"; let pyenv say which.
                return RunShim{fmt::format("pyenv version '{}' (set by {}) is not installed",
                                           util::escape_for_message(name), selection.origin)};
            }
            versions.push_back(match.name);
        }
    }
    return versions;
}

// Step 3 (pyenv-which): the `command` of the first version that has it.
ShimResolution first_with_command(const std::string& command, const fs::path& root,
                                  const std::vector<std::string>& versions,
                                  const PyenvSelection& selection, const Lookup& lookup) {
    for (const std::string& version : versions) {
        std::optional<fs::path> interpreter;
        if (version == "system") {
            interpreter = util::find_in_path(
                command, path_without(lookup.path_env, root / "shims", variable(lookup, "HOME")));
        } else if (fs::path candidate = root / "versions" / version / "bin" / command;
                   util::is_executable_file(candidate)) {
            interpreter = candidate;
        }
        if (interpreter) {
            return resolved(*interpreter, fmt::format("pyenv {} (set by {})", selection.selected,
                                                      selection.origin));
        }
    }
    return run_shim(
        fmt::format("no selected pyenv version ({}) has {}", selection.selected, command));
}

} // namespace

ShimResolution resolve_pyenv(const fs::path& found, const fs::path& root,
                             const fs::path& install_prefix, const Lookup& lookup) {
    if (auto reason = pyenv_answers_itself(found, root, install_prefix, lookup)) {
        return run_shim(std::move(*reason));
    }
    auto selection = pyenv_selection(root, lookup);
    if (auto* stop = std::get_if<RunShim>(&selection)) {
        return run_shim(std::move(stop->reason));
    }
    const auto& selected = std::get<PyenvSelection>(selection);
    auto versions = installed_selection(root / "versions", selected);
    if (auto* stop = std::get_if<RunShim>(&versions)) {
        return run_shim(std::move(stop->reason));
    }
    return first_with_command(found.filename().string(), root,
                              std::get<std::vector<std::string>>(versions), selected, lookup);
}

} // namespace colossalai::python::shim_detail
