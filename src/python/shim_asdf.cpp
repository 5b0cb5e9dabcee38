// The asdf part of resolve_shim() (shim.hpp), as that tool's scripts do it.
#include "shim_resolvers.hpp"

#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

namespace colossalai::python::shim_detail {

namespace fs = std::filesystem;

std::optional<std::vector<std::string>> tool_versions_python(std::string_view text) {
    for (std::string_view line : util::split_lines(text)) {
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

bool asdfrc_reads_legacy_files(std::string_view text) {
    for (std::string_view line : util::split_lines(text)) {
        size_t equals = line.find('=');
        if (equals != std::string_view::npos &&
            util::trim(line.substr(0, equals)) == "legacy_version_file" &&
            util::trim(line.substr(equals + 1)) == "yes") {
            return true;
        }
    }
    return false;
}

std::vector<fs::path> tool_versions_candidates(const fs::path& working_directory,
                                               const std::string& name,
                                               const std::optional<std::string>& home) {
    fs::path directory = working_directory.lexically_normal();
    std::vector<fs::path> candidates;
    while (true) {
        candidates.push_back(directory / name);
        if (!directory.has_relative_path()) {
            break;
        }
        directory = directory.parent_path();
    }
    if (home) {
        candidates.push_back(fs::path(*home) / name);
    }
    return candidates;
}

namespace {

// $ASDF_DATA_DIR, else ~/.asdf; none without either variable.
std::optional<fs::path> asdf_data_dir(const Lookup& lookup) {
    if (auto dir = non_empty(lookup, "ASDF_DATA_DIR")) {
        return fs::path(*dir);
    }
    if (auto home = non_empty(lookup, "HOME")) {
        return fs::path(*home) / ".asdf";
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
    return text && asdfrc_reads_legacy_files(*text);
}

// The selected python versions and where they come from (no versions: none is set).
struct AsdfSelection {
    std::vector<std::string> versions;
    std::string origin; // ASDF_PYTHON_VERSION or the .tool-versions file read
};

// Step 1 (asdf's resolve): ASDF_PYTHON_VERSION, else the first .tool-versions with a python
// line from the working directory upwards, else the one in $HOME.
AsdfSelection asdf_selection(const Lookup& lookup) {
    AsdfSelection selection;
    if (auto version = non_empty(lookup, "ASDF_PYTHON_VERSION")) {
        for (const std::string& word : util::split(*version, ' ')) {
            if (!util::trim(word).empty()) {
                selection.versions.emplace_back(util::trim(word));
            }
        }
        selection.origin = "ASDF_PYTHON_VERSION";
        return selection;
    }
    std::string name =
        non_empty(lookup, "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME").value_or(".tool-versions");
    for (const fs::path& file :
         tool_versions_candidates(lookup.working_directory, name, non_empty(lookup, "HOME"))) {
        std::optional<std::string> text = util::read_file(file, version_file_bytes);
        if (auto versions = text ? tool_versions_python(*text) : std::nullopt) {
            return {std::move(*versions), file.string()};
        }
    }
    return selection;
}

// Step 2: the `command` of the first selected version installed under `data_dir` that has it.
ShimResolution first_asdf_with_command(const std::string& command, const fs::path& data_dir,
                                       const AsdfSelection& selection, const Lookup& lookup) {
    std::string selected = fmt::format("{}", fmt::join(selection.versions, " "));
    for (const std::string& version : selection.versions) {
        if (version == "system") {
            if (auto interpreter = util::find_in_path(
                    command, path_without(lookup.path_env, data_dir / "shims", std::nullopt))) {
                return resolved(*interpreter,
                                fmt::format("asdf {} (set by {})", selected, selection.origin));
            }
            continue;
        }
        if (version.find(':') != std::string::npos || version.find('/') != std::string::npos ||
            version == "." || version == "..") {
            return run_shim(fmt::format("asdf version '{}' (set by {})",
                                        util::escape_for_message(version), selection.origin));
        }
        fs::path candidate = data_dir / "installs" / "python" / version / "bin" / command;
        if (util::is_executable_file(candidate)) {
            return resolved(candidate,
                            fmt::format("asdf {} (set by {})", selected, selection.origin));
        }
    }
    // asdf fails here ("No preset version installed for command python3"): let it say so.
    return run_shim(fmt::format("no asdf python version of '{}' (set by {}) is installed", selected,
                                selection.origin));
}

} // namespace

ShimResolution resolve_asdf(const fs::path& found, const Lookup& lookup) {
    std::optional<fs::path> data_dir = asdf_data_dir(lookup);
    if (!data_dir ||
        found.parent_path().lexically_normal() != (*data_dir / "shims").lexically_normal()) {
        return run_shim("an asdf shim outside $ASDF_DATA_DIR/shims");
    }
    if (asdf_reads_legacy_files(lookup)) {
        return run_shim("asdf reads legacy version files (legacy_version_file = yes)");
    }
    AsdfSelection selection = asdf_selection(lookup);
    if (selection.versions.empty()) {
        return run_shim("no asdf python version is set");
    }
    return first_asdf_with_command(found.filename().string(), *data_dir, selection, lookup);
}

} // namespace colossalai::python::shim_detail
