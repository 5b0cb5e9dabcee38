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

namespace {

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

} // namespace

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

} // namespace colossalai::python::shim_detail
