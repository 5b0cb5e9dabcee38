#include "reference.hpp"

#include "colossalai/util/strings.hpp"

#include <fmt/format.h>

namespace colossalai::cli {

namespace {

// Text for a roff line: backslashes and minus signs escaped (so that options copy as typed), and
// a leading '.' or '\'' kept from reading as a request.
std::string roff(std::string_view text) {
    std::string result;
    for (char c : text) {
        if (c == '\\') {
            result += "\\e";
        } else if (c == '-') {
            result += "\\-";
        } else {
            result += c;
        }
    }
    if (!result.empty() && (result[0] == '.' || result[0] == '\'')) {
        result.insert(0, "\\&");
    }
    return result;
}

std::string bold(std::string_view text) {
    return "\\fB" + roff(text) + "\\fR";
}

std::string italic(std::string_view text) {
    return "\\fI" + roff(text) + "\\fR";
}

std::string upper(std::string text) {
    for (char& c : text) {
        if (c >= 'a' && c <= 'z') {
            c = static_cast<char>(c - 'a' + 'A');
        }
    }
    return text;
}

// Paragraphs of --help text: lines joined, a blank line starts a new paragraph.
std::string paragraphs(std::string_view text) {
    std::string result;
    bool new_paragraph = true;
    for (std::string_view line : util::split_lines(text)) {
        line = util::trim(line);
        if (line.empty()) {
            new_paragraph = true;
            continue;
        }
        if (new_paragraph && !result.empty()) {
            result += ".PP\n";
        }
        new_paragraph = false;
        result += roff(line) + "\n";
    }
    return result;
}

std::string synopsis(const CommandReference& command) {
    std::string result = ".B " + roff(command.path) + "\n[" + italic("OPTIONS") + "]";
    if (!command.subcommands.empty()) {
        result += " " + italic("COMMAND") + " [" + italic("ARGS") + "...]";
    }
    for (const PositionalReference& positional : command.positionals) {
        result += positional.repeated ? " [" + italic(positional.name) + "...]"
                                      : " " + italic(positional.name);
    }
    return result + "\n";
}

std::string option_entry(const OptionReference& option) {
    std::vector<std::string> bold_names;
    for (const std::string& name : option.names) {
        bold_names.push_back(bold(name));
    }
    std::string names = fmt::format("{}", fmt::join(bold_names, ", "));
    if (!option.value_name.empty()) {
        names += " " + italic(option.value_name);
    }
    std::string entry = ".TP\n" + names + "\n" + roff(option.help) + "\n";
    if (!option.default_value.empty()) {
        entry += ".br\nDefault: " + roff(option.default_value) + ".\n";
    }
    return entry;
}

} // namespace

std::string render_man_page(const CommandReference& command, std::string_view version,
                            const std::vector<std::string>& see_also) {
    std::string name = page_name(command);
    std::string page = fmt::format(".\\\" Generated from the command line of colossalai {}: "
                                   "`colossalai --generate={}.1`. Do not edit.\n",
                                   version, name);
    page += fmt::format(".TH {} 1 \"\" \"colossalai {}\" \"User Commands\"\n", roff(upper(name)),
                        roff(version));
    page += ".SH NAME\n" + roff(name) + " \\- " + roff(command.description) + "\n";
    page += ".SH SYNOPSIS\n" + synopsis(command);
    page += ".SH DESCRIPTION\n" + paragraphs(command.description);
    if (!command.footer.empty()) {
        page += ".PP\n" + paragraphs(command.footer);
    }
    if (!command.subcommands.empty()) {
        page += ".SH COMMANDS\n";
        for (const CommandReference& sub : command.subcommands) {
            page += ".TP\n" + bold(command_name(sub)) + "\n" + roff(sub.description) +
                    " See\n.BR " + roff(page_name(sub)) + " (1).\n";
        }
    }
    if (!command.positionals.empty()) {
        page += ".SH ARGUMENTS\n";
        for (const PositionalReference& positional : command.positionals) {
            page += ".TP\n" + italic(positional.name) + (positional.repeated ? "..." : "") + "\n" +
                    roff(positional.help) + "\n";
        }
    }
    page += ".SH OPTIONS\n";
    for (const OptionReference& option : command.options) {
        page += option_entry(option);
    }
    if (!see_also.empty()) {
        page += ".SH SEE ALSO\n";
        for (size_t i = 0; i < see_also.size(); ++i) {
            std::string_view reference = see_also[i];
            size_t paren = reference.find('(');
            page += ".BR " + roff(reference.substr(0, paren)) + " " +
                    std::string(reference.substr(paren)) + (i + 1 < see_also.size() ? "," : "") +
                    "\n";
        }
    }
    return page;
}

} // namespace colossalai::cli
