#include "colossalai/run/env_control.hpp"

#include "colossalai/run/environment.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <map>

namespace colossalai::run {

namespace {

// Variables a shell sets itself and refuses (or ignores) from the environment: read-only in
// bash (an `export UID=...` on a node fails), or used by the node's wrapper script (IFS).
bool is_shell_managed(std::string_view name) {
    // Sorted, for std::binary_search.
    static constexpr std::string_view names[] = {
        "BASHOPTS",    "BASHPID",       "BASH_ARGC", "BASH_ARGV", "BASH_LINENO",
        "BASH_SOURCE", "BASH_VERSINFO", "EUID",      "GROUPS",    "IFS",
        "PPID",        "SHELLOPTS",     "UID",
    };
    return std::binary_search(std::begin(names), std::end(names), name);
}

std::string shown(std::string_view text) {
    return util::escape_for_message(std::string(text));
}

} // namespace

bool EnvPattern::matches(std::string_view name) const {
    return prefix ? util::starts_with(name, std::string_view(text).substr(0, text.size() - 1))
                  : name == text;
}

void check_env_name(std::string_view name, std::string_view where) {
    if (!util::is_identifier(name)) {
        throw usage_error("{}'{}' is not a variable name (letters, digits and _, not starting "
                          "with a digit)",
                          where, shown(name));
    }
    if (is_shell_managed(name)) {
        throw usage_error("{}'{}' is a read-only shell variable; it cannot be passed to a "
                          "node",
                          where, shown(name));
    }
}

void check_env_value(std::string_view name, std::string_view value, std::string_view where) {
    if (value.find('\0') != std::string_view::npos) {
        throw usage_error("{}the value of '{}' holds a NUL byte", where, shown(name));
    }
    if (value.find_first_of("\r\n") != std::string_view::npos) {
        throw usage_error("{}the value of '{}' holds a line break, which cannot be passed to a "
                          "node",
                          where, shown(name));
    }
}

std::vector<EnvSetting> parse_env_file(std::string_view text, std::string_view path) {
    std::map<std::string, EnvSetting> settings;
    size_t number = 0;
    size_t begin = 0;
    while (begin < text.size()) {
        size_t end = text.find('\n', begin);
        std::string_view line = text.substr(
            begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
        begin = end == std::string_view::npos ? text.size() : end + 1;
        ++number;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos || line[first] == '#') {
            continue;
        }
        line.remove_prefix(first);
        std::string where = fmt::format("{}:{}: ", shown(path), number);
        // A shell script's line: named as docs/run.md names it, not as a bad variable name.
        if (line.size() > 6 && line.substr(0, 6) == "export" &&
            (line[6] == ' ' || line[6] == '\t')) {
            throw usage_error("{}expected NAME=VALUE, found 'export'", where);
        }
        size_t equals = line.find('=');
        if (equals == std::string_view::npos) {
            throw usage_error("{}expected NAME=VALUE, found '{}'", where, shown(line));
        }
        std::string_view name = line.substr(0, equals);
        std::string_view value = line.substr(equals + 1);
        check_env_name(name, where);
        check_env_value(name, value, where);
        settings.insert_or_assign(
            std::string(name),
            EnvSetting{std::string(name), std::string(value), fmt::format("{}:{}", path, number)});
    }
    std::vector<EnvSetting> result;
    for (auto& [name, setting] : settings) {
        result.push_back(std::move(setting));
    }
    return result;
}

EnvSetting parse_export(std::string_view word,
                        const std::vector<std::string>& launcher_environment) {
    size_t equals = word.find('=');
    std::string_view name = word.substr(0, equals);
    check_env_name(name, "-x: ");
    if (equals != std::string_view::npos) {
        std::string_view value = word.substr(equals + 1);
        check_env_value(name, value, "-x: ");
        return {std::string(name), std::string(value), "-x"};
    }
    if (std::optional<std::string> value = find_variable(launcher_environment, name)) {
        check_env_value(name, *value, "-x: ");
        return {std::string(name), std::move(*value), "-x"};
    }
    throw usage_error("-x: '{}' is not set in the launcher's environment (use -x {}=VALUE)",
                      shown(name), shown(name));
}

std::vector<EnvPattern> parse_env_patterns(std::string_view text) {
    std::vector<EnvPattern> patterns;
    for (const std::string& item : util::split(text, ',')) {
        std::string_view name = item;
        bool prefix = !name.empty() && name.back() == '*';
        if (prefix) {
            name.remove_suffix(1);
        }
        if (item.empty()) {
            throw usage_error("--env-exclude '{}': an empty pattern", shown(text));
        }
        // `*` alone matches every name; else the prefix must be the start of a name.
        bool valid = (prefix && name.empty()) || util::is_identifier(name);
        if (!valid) {
            throw usage_error("--env-exclude '{}': not a variable name or NAME* pattern",
                              shown(item));
        }
        patterns.push_back({item, prefix});
    }
    return patterns;
}

EnvironmentChanges plan_environment(const EnvRequest& request,
                                    const std::vector<std::string>& launcher_environment,
                                    const std::vector<EnvVar>& launcher) {
    std::map<std::string, EnvSetting> set;
    for (const EnvFileText& file : request.files) {
        for (EnvSetting& setting : parse_env_file(file.text, file.path)) {
            set.insert_or_assign(setting.name, std::move(setting));
        }
    }
    std::vector<EnvPattern> patterns;
    EnvironmentChanges changes;
    for (const std::string& text : request.exclude) {
        for (EnvPattern& pattern : parse_env_patterns(text)) {
            changes.patterns.push_back(pattern.text);
            patterns.push_back(std::move(pattern));
        }
    }
    auto excluded = [&](std::string_view name) {
        return std::any_of(patterns.begin(), patterns.end(),
                           [&](const EnvPattern& pattern) { return pattern.matches(name); });
    };
    std::erase_if(set, [&](const auto& entry) { return excluded(entry.first); });
    for (const std::string& word : request.exports) {
        EnvSetting setting = parse_export(word, launcher_environment);
        set.insert_or_assign(setting.name, std::move(setting));
    }
    for (const auto& [name, value] : launcher) {
        if (excluded(name) && set.count(name) == 0) {
            changes.dropped.push_back(name);
        }
    }
    for (auto& [name, setting] : set) {
        changes.set.push_back(std::move(setting));
    }
    return changes;
}

std::vector<EnvVar> remote_environment(const std::vector<EnvVar>& launcher,
                                       const EnvironmentChanges& changes) {
    std::map<std::string, std::string> result;
    for (const auto& [name, value] : launcher) {
        if (!std::binary_search(changes.dropped.begin(), changes.dropped.end(), name)) {
            result.emplace(name, value);
        }
    }
    for (const EnvSetting& setting : changes.set) {
        result.insert_or_assign(setting.name, setting.value);
    }
    return {result.begin(), result.end()};
}

} // namespace colossalai::run
