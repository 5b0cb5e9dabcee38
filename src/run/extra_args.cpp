#include "colossalai/run/extra_args.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>

namespace colossalai::run {

namespace {

bool is_option_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// Splits at the commas that are not escaped: `\,` is a comma inside an item and `\\` a
// backslash; any other backslash stays as it is (a path such as `C:\x` keeps its byte).
std::vector<std::string> split_items(std::string_view text) {
    std::vector<std::string> items(1);
    for (size_t at = 0; at < text.size(); ++at) {
        char c = text[at];
        if (c == '\\' && at + 1 < text.size() && (text[at + 1] == ',' || text[at + 1] == '\\')) {
            items.back() += text[++at];
        } else if (c == ',') {
            items.emplace_back();
        } else {
            items.back() += c;
        }
    }
    return items;
}

} // namespace

bool same_option(std::string_view name, std::string_view option) {
    return name.size() == option.size() &&
           std::equal(name.begin(), name.end(), option.begin(),
                      [](char a, char b) { return (a == '-' ? '_' : a) == (b == '-' ? '_' : b); });
}

std::vector<LaunchArg> parse_extra_launch_args(std::string_view text) {
    std::string shown = util::escape_for_message(text);
    std::vector<LaunchArg> args;
    std::vector<std::string> items = split_items(text);
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string& item = items[i];
        size_t equals = item.find('=');
        LaunchArg arg{item.substr(0, equals), std::nullopt};
        if (equals != std::string::npos) {
            arg.value = item.substr(equals + 1);
        }
        if (arg.name.empty()) {
            throw usage_error("--extra_launch_args '{}': item {} has an empty name", shown, i + 1);
        }
        if (arg.name.front() == '-' ||
            !std::all_of(arg.name.begin(), arg.name.end(), is_option_char)) {
            throw usage_error("--extra_launch_args '{}': invalid name '{}' (write names like "
                              "'rdzv_backend', without leading dashes)",
                              shown, util::escape_for_message(arg.name));
        }
        for (std::string_view reserved : {"nproc_per_node", "nnodes", "node_rank"}) {
            if (same_option(arg.name, reserved)) {
                throw usage_error("--extra_launch_args: '{}' is set by colossalai run itself",
                                  arg.name);
            }
        }
        for (std::string_view replaced : {"master_addr", "master_port"}) {
            if (!same_option(arg.name, replaced)) {
                continue;
            }
            if (!arg.value || arg.value->empty()) {
                throw usage_error("--extra_launch_args: '{}' needs a value", arg.name);
            }
            bool twice = std::any_of(args.begin(), args.end(), [&](const LaunchArg& other) {
                return same_option(other.name, replaced);
            });
            if (twice) {
                throw usage_error("--extra_launch_args: '{}' is given twice", replaced);
            }
        }
        args.push_back(std::move(arg));
    }
    return args;
}

std::string to_word(const LaunchArg& arg) {
    return arg.value ? "--" + arg.name + "=" + *arg.value : "--" + arg.name;
}

std::optional<std::string> take_value(std::vector<LaunchArg>& args, std::string_view option) {
    auto it = std::find_if(args.begin(), args.end(),
                           [&](const LaunchArg& arg) { return same_option(arg.name, option); });
    if (it == args.end()) {
        return std::nullopt;
    }
    std::optional<std::string> value = it->value;
    args.erase(it);
    return value;
}

} // namespace colossalai::run
