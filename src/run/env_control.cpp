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

std::string shown(std::string_view text) {
    return util::escape_for_message(std::string(text));
}

} // namespace

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

EnvSetting resolve_export(const EnvExport& export_,
                          const std::vector<std::string>& launcher_environment) {
    if (export_.value) {
        return {export_.name, *export_.value, "-x"};
    }
    if (std::optional<std::string> value = find_variable(launcher_environment, export_.name)) {
        check_env_value(export_.name, *value, "-x: ");
        return {export_.name, std::move(*value), "-x"};
    }
    throw usage_error("-x: '{}' is not set in the launcher's environment (use -x {}=VALUE)",
                      shown(export_.name), shown(export_.name));
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
    const std::vector<EnvPattern>& patterns = request.exclude;
    EnvironmentChanges changes;
    for (const EnvPattern& pattern : request.exclude) {
        changes.patterns.push_back(pattern.text);
    }
    auto excluded = [&](std::string_view name) {
        return std::any_of(patterns.begin(), patterns.end(),
                           [&](const EnvPattern& pattern) { return pattern.matches(name); });
    };
    std::erase_if(set, [&](const auto& entry) { return excluded(entry.first); });
    for (const EnvExport& export_ : request.exports) {
        EnvSetting setting = resolve_export(export_, launcher_environment);
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
