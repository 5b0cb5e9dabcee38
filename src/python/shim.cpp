#include "colossalai/python/shim.hpp"

#include "shim_resolvers.hpp"

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

namespace shim_detail {

ShimResolution run_shim(std::string reason) {
    ShimResolution resolution;
    resolution.verdict = ShimResolution::Verdict::run_shim;
    resolution.reason = std::move(reason);
    return resolution;
}

ShimResolution resolved(fs::path interpreter, std::string selection) {
    ShimResolution resolution;
    resolution.verdict = ShimResolution::Verdict::resolved;
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

std::optional<std::string> non_empty(const Lookup& lookup, const std::string& name) {
    auto value = variable(lookup, name);
    if (!value || value->empty()) {
        return std::nullopt;
    }
    return value;
}

bool directory_exists(const fs::path& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool regular_file_exists(const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

std::string path_without(const std::string& path_env, const fs::path& removed,
                         const std::optional<std::string>& home) {
    std::vector<std::string> kept;
    for (std::string entry : util::split(path_env, ':')) {
        if (home && !entry.empty() && entry.front() == '~') {
            entry = *home + entry.substr(1);
        }
        if (fs::path(entry) != removed) {
            kept.push_back(std::move(entry));
        }
    }
    return fmt::format("{}", fmt::join(kept, ":"));
}

} // namespace shim_detail

namespace {

using namespace shim_detail;

// Shims are a few hundred bytes; reading more would only cost time on a real interpreter.
constexpr std::size_t shim_head_bytes = 4096;

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
