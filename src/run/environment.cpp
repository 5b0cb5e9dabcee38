#include "colossalai/run/environment.hpp"

#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <iterator>

namespace colossalai::run {

bool is_session_variable(std::string_view name) {
    // Sorted, for std::binary_search.
    static constexpr std::string_view names[] = {
        "BASH",
        "BASHOPTS",
        "BASHPID",
        "BASH_ARGC",
        "BASH_ARGV",
        "BASH_LINENO",
        "BASH_SOURCE",
        "BASH_SUBSHELL",
        "BASH_VERSINFO",
        "BASH_VERSION",
        "DISPLAY",
        "EUID",
        "GROUPS",
        "HOME",
        "HOSTNAME",
        "LOGNAME",
        "MAIL",
        "OLDPWD",
        "PPID",
        "PWD",
        "SHELL",
        "SHELLOPTS",
        "SHLVL",
        "UID",
        "USER",
        "XDG_RUNTIME_DIR",
        "_",
    };
    return util::starts_with(name, "SSH_") || util::starts_with(name, "XDG_SESSION_") ||
           std::binary_search(std::begin(names), std::end(names), name);
}

std::optional<std::string> find_variable(const std::vector<std::string>& entries,
                                         std::string_view name) {
    for (const std::string& entry : entries) {
        if (entry.size() > name.size() && entry[name.size()] == '=' &&
            util::starts_with(entry, name)) {
            return entry.substr(name.size() + 1);
        }
    }
    return std::nullopt;
}

std::vector<std::string> with_launcher_defaults(std::vector<std::string> entries) {
    static const EnvVar defaults[] = {{"PYTHONUNBUFFERED", "1"}};
    for (const auto& [name, value] : defaults) {
        if (!find_variable(entries, name)) {
            entries.push_back(name + "=" + value);
        }
    }
    return entries;
}

std::vector<EnvVar> filter_environment(const std::vector<std::string>& entries) {
    std::vector<EnvVar> kept;
    for (const std::string& entry : entries) {
        size_t equals = entry.find('=');
        if (equals == std::string::npos) {
            continue;
        }
        std::string name = entry.substr(0, equals);
        std::string value = entry.substr(equals + 1);
        if (!util::is_identifier(name) || is_session_variable(name) ||
            value.find_first_of("\r\n") != std::string::npos) {
            continue;
        }
        kept.emplace_back(std::move(name), std::move(value));
    }
    // A stable sort keeps the first of two equal names in front: unique() then drops the others.
    std::stable_sort(kept.begin(), kept.end(),
                     [](const EnvVar& a, const EnvVar& b) { return a.first < b.first; });
    auto last = std::unique(kept.begin(), kept.end(),
                            [](const EnvVar& a, const EnvVar& b) { return a.first == b.first; });
    kept.erase(last, kept.end());
    return kept;
}

} // namespace colossalai::run
