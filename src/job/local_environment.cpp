#include "colossalai/job/local_environment.hpp"

#include <algorithm>
#include <string_view>

namespace colossalai::job {

std::vector<std::string> local_environment(const std::vector<std::string>& entries,
                                           const EnvironmentChanges& changes, bool drop) {
    auto set_here = [&](std::string_view name) {
        return std::any_of(changes.set.begin(), changes.set.end(),
                           [&](const EnvSetting& setting) { return setting.name == name; });
    };
    auto dropped = [&](std::string_view name) {
        return drop && std::find(changes.dropped.begin(), changes.dropped.end(), name) !=
                           changes.dropped.end();
    };
    std::vector<std::string> result;
    for (const std::string& entry : entries) {
        std::string_view name = std::string_view(entry).substr(0, entry.find('='));
        if (!dropped(name) && !set_here(name)) {
            result.push_back(entry);
        }
    }
    for (const EnvSetting& setting : changes.set) {
        result.push_back(setting.name + "=" + setting.value);
    }
    return result;
}

std::vector<std::string> with_flag_environment(std::vector<std::string> entries,
                                               const std::vector<EnvVar>& flag_environment) {
    std::erase_if(entries, [&](const std::string& entry) {
        std::string_view name = std::string_view(entry).substr(0, entry.find('='));
        return std::any_of(flag_environment.begin(), flag_environment.end(),
                           [&](const EnvVar& variable) { return variable.first == name; });
    });
    for (const auto& [name, value] : flag_environment) {
        entries.push_back(name + "=" + value);
    }
    return entries;
}

} // namespace colossalai::job
