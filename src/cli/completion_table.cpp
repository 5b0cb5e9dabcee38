#include "reference.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

namespace colossalai::cli {

namespace {

std::string_view kind_name(ValueKind kind) {
    switch (kind) {
    case ValueKind::none:
        return "flag";
    case ValueKind::text:
        return "text";
    case ValueKind::file:
        return "file";
    case ValueKind::directory:
        return "directory";
    case ValueKind::hosts:
        return "hosts";
    case ValueKind::script:
        return "script";
    case ValueKind::rest:
        return "rest";
    }
    return "text";
}

// One field of a table line: no tabs or newlines inside.
std::string field(std::string_view text) {
    std::string result(text);
    for (char& c : result) {
        if (c == '\t' || c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return result;
}

// Every spelling a command accepts: `--nproc_per_node` and `--nproc-per-node` where '-' and '_'
// are alike.
std::string spellings(const OptionReference& option, bool underscore_dash_alike) {
    std::vector<std::string> names = option.names;
    if (underscore_dash_alike) {
        for (const std::string& name : option.names) {
            if (name.size() < 3 || name.compare(0, 2, "--") != 0) {
                continue;
            }
            for (auto [from, to] : {std::pair{'_', '-'}, std::pair{'-', '_'}}) {
                std::string other = name;
                for (size_t i = 2; i < other.size(); ++i) {
                    if (other[i] == from) {
                        other[i] = to;
                    }
                }
                if (other != name) {
                    names.push_back(other);
                }
            }
        }
    }
    return fmt::format("{}", fmt::join(names, ","));
}

void add_rows(const CommandReference& command, std::string& table) {
    std::string name = command_name(command);
    for (const OptionReference& option : command.options) {
        table += "option\t" + name + "\t" + spellings(option, command.underscore_dash_alike) +
                 "\t" + std::string(kind_name(option.kind)) + "\t" + field(option.help) + "\n";
    }
    for (const PositionalReference& positional : command.positionals) {
        table += "positional\t" + name + "\t" + positional.name + "\t" +
                 std::string(kind_name(positional.kind)) + "\t" + field(positional.help) + "\n";
    }
}

} // namespace

std::string render_completion_table(const CommandReference& root) {
    std::string table;
    for (const CommandReference& sub : root.subcommands) {
        table += "command\t" + command_name(sub) + "\t" + field(sub.description) + "\n";
    }
    add_rows(root, table);
    for (const CommandReference& sub : root.subcommands) {
        add_rows(sub, table);
    }
    return table;
}

std::vector<std::string> generated_names() {
    return {"colossalai.1", "colossalai-check.1", "colossalai-run.1", "completion-table"};
}

std::string generate(const CommandReference& root, std::string_view name,
                     std::string_view version) {
    if (name == "completion-table") {
        return render_completion_table(root);
    }
    std::vector<const CommandReference*> pages{&root};
    for (const CommandReference& sub : root.subcommands) {
        pages.push_back(&sub);
    }
    for (const CommandReference* page : pages) {
        if (name != page_name(*page) + ".1") {
            continue;
        }
        std::vector<std::string> see_also;
        for (const CommandReference* other : pages) {
            if (other != page) {
                see_also.push_back(page_name(*other) + "(1)");
            }
        }
        return render_man_page(*page, version, see_also);
    }
    throw usage_error("--generate: unknown output '{}' (one of {})", util::escape_for_message(name),
                      fmt::join(generated_names(), ", "));
}

} // namespace colossalai::cli
