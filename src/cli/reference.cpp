#include "reference.hpp"

#include <algorithm>

namespace colossalai::cli {

namespace {

// CLI11 hides what is in the group named "".
bool visible(const std::string& group) {
    return !group.empty();
}

OptionReference describe_option(const CLI::Option& option) {
    OptionReference result;
    for (const std::string& name : option.get_snames()) {
        result.names.push_back("-" + name);
    }
    for (const std::string& name : option.get_lnames()) {
        result.names.push_back("--" + name);
    }
    if (option.get_type_size_max() > 0) {
        result.value_name = option.get_type_name();
    }
    result.kind = value_kind(result.value_name);
    result.help = option.get_description();
    result.default_value = option.get_default_str();
    return result;
}

PositionalReference describe_positional(const CLI::Option& option) {
    PositionalReference result;
    result.name = option.get_name(true);
    result.repeated = option.get_items_expected_max() > 1;
    // The script ends option parsing; what repeats after it belongs to the script.
    if (result.name == "SCRIPT") {
        result.kind = ValueKind::script;
    } else {
        result.kind = result.repeated ? ValueKind::rest : ValueKind::text;
    }
    result.help = option.get_description();
    return result;
}

} // namespace

ValueKind value_kind(std::string_view value_name) {
    if (value_name.empty()) {
        return ValueKind::none;
    }
    if (value_name == "FILE" || value_name == "PATH") {
        return ValueKind::file;
    }
    if (value_name == "DIR") {
        return ValueKind::directory;
    }
    if (value_name == "HOSTS") {
        return ValueKind::hosts;
    }
    if (value_name == "MODULE") {
        return ValueKind::rest;
    }
    return ValueKind::text;
}

std::string page_name(const CommandReference& command) {
    std::string name = command.path;
    std::replace(name.begin(), name.end(), ' ', '-');
    return name;
}

std::string command_name(const CommandReference& command) {
    return command.path.substr(command.path.rfind(' ') + 1);
}

CommandReference describe(const CLI::App& app, const std::string& path) {
    CommandReference result;
    result.path = path;
    result.description = app.get_description();
    result.footer = app.get_footer();
    for (const CLI::Option* option : app.get_options()) {
        if (!visible(option->get_group())) {
            continue;
        }
        if (option->nonpositional()) {
            result.options.push_back(describe_option(*option));
        } else {
            result.positionals.push_back(describe_positional(*option));
        }
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
        if (visible(sub->get_group())) {
            result.subcommands.push_back(describe(*sub, path + " " + sub->get_name()));
        }
    }
    return result;
}

} // namespace colossalai::cli
