#include "colossalai/run/env_values.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <iterator>

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

// A name or value as a message shows it.
std::string shown_env_text(std::string_view text) {
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
                          where, shown_env_text(name));
    }
    if (is_shell_managed(name)) {
        throw usage_error("{}'{}' is a read-only shell variable; it cannot be passed to a "
                          "node",
                          where, shown_env_text(name));
    }
}

void check_env_value(std::string_view name, std::string_view value, std::string_view where) {
    if (value.find('\0') != std::string_view::npos) {
        throw usage_error("{}the value of '{}' holds a NUL byte", where, shown_env_text(name));
    }
    if (value.find_first_of("\r\n") != std::string_view::npos) {
        throw usage_error("{}the value of '{}' holds a line break, which cannot be passed to a "
                          "node",
                          where, shown_env_text(name));
    }
}

EnvExport parse_env_export(std::string_view word) {
    size_t equals = word.find('=');
    std::string_view name = word.substr(0, equals);
    check_env_name(name, "-x: ");
    if (equals == std::string_view::npos) {
        return {std::string(name), std::nullopt};
    }
    std::string_view value = word.substr(equals + 1);
    check_env_value(name, value, "-x: ");
    return {std::string(name), std::string(value)};
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
            throw usage_error("--env-exclude '{}': an empty pattern", shown_env_text(text));
        }
        // `*` alone matches every name; else the prefix must be the start of a name.
        bool valid = (prefix && name.empty()) || util::is_identifier(name);
        if (!valid) {
            throw usage_error("--env-exclude '{}': not a variable name or NAME* pattern",
                              shown_env_text(item));
        }
        patterns.push_back({item, prefix});
    }
    return patterns;
}

} // namespace colossalai::run
