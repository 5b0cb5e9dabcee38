#pragma once

// Private to the cli module: the command line as data, for what is generated from it at build
// time (the man pages and the shell completions), so that neither can drift from --help.

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace colossalai::cli {

// What a shell may offer for an option's value, from the value's name in --help.
enum class ValueKind {
    none,      // a flag: no value
    text,      // anything; nothing to offer
    file,      // FILE or PATH: file names
    directory, // DIR: directory names
    hosts,     // HOSTS: host names (hostfile, ~/.ssh/config)
    script,    // the SCRIPT positional: a Python file; option parsing ends there
    rest,      // MODULE, or what follows the script: theirs; nothing to offer
};

// The kind of an option's value named `value_name` in --help ("FILE", "HOSTS", ...); a flag
// (empty name) has none.
ValueKind value_kind(std::string_view value_name);

struct OptionReference {
    std::vector<std::string> names; // as in --help: "-H", "--host"
    std::string value_name;         // "HOSTS"; empty for a flag
    ValueKind kind = ValueKind::none;
    std::string help;
    std::string default_value; // empty when --help shows none
};

struct PositionalReference {
    std::string name; // "SCRIPT"
    ValueKind kind = ValueKind::text;
    bool repeated = false; // ARGS...
    std::string help;
};

struct CommandReference {
    std::string path; // "colossalai", "colossalai run"
    std::string description;
    std::string footer;
    std::vector<OptionReference> options; // in --help order, hidden ones left out
    std::vector<PositionalReference> positionals;
    std::vector<CommandReference> subcommands;
    // `run` takes '-' and '_' alike in long option names.
    bool underscore_dash_alike = false;
};

// "colossalai run" -> "colossalai-run": the name of its man page.
std::string page_name(const CommandReference& command);

// "colossalai run" -> "run": the word that names the command on the command line.
std::string command_name(const CommandReference& command);

// The visible options, positionals and subcommands of `app` (named `path`), as --help shows them.
CommandReference describe(const CLI::App& app, const std::string& path);

// The man page (roff, man(7) macros) of `command`; `version` goes in the page's footer and
// `see_also` names the related pages ("colossalai-run(1)").
std::string render_man_page(const CommandReference& command, std::string_view version,
                            const std::vector<std::string>& see_also);

// The shell completions' table, one line per subcommand, option and positional:
//   command <TAB> name
//   option  <TAB> command <TAB> names (comma-separated, every accepted spelling) <TAB> kind
//           <TAB> help
//   positional <TAB> command <TAB> name <TAB> kind <TAB> help
// where kind is one of flag, text, file, directory, hosts, script, rest. Tabs and newlines in
// help texts become spaces.
std::string render_completion_table(const CommandReference& root);

// The man page file names ("colossalai-run.1") and the completion table ("completion-table")
// that `--generate NAME` can write, and what each holds.
std::vector<std::string> generated_names();
std::string generate(const CommandReference& root, std::string_view name, std::string_view version);

} // namespace colossalai::cli
