#include "colossalai/run/srun_command.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>

namespace colossalai::run {

namespace {

// The options the launcher sets itself: a second value from the user would change how the tasks
// are laid out or how their output is read.
constexpr std::string_view own_long_options[] = {
    "--nodes",      "--ntasks",           "--ntasks-per-node", "--nodelist", "--label",
    "--unbuffered", "--kill-on-bad-exit", "--output",          "--error",    "--input",
    "--pty"};
constexpr char own_short_options[] = {'N', 'n', 'w', 'l', 'u', 'K', 'o', 'e', 'i'};

void check_srun_word(const std::string& word) {
    std::string shown = util::escape_for_message(word);
    if (word.size() < 2 || word[0] != '-') {
        return; // the value of the option before it
    }
    if (word[1] == '-') {
        std::string_view name = std::string_view(word).substr(0, word.find('='));
        for (std::string_view own : own_long_options) {
            if (name == own) {
                throw usage_error("--srun-args: '{}' is set by the launcher itself", shown);
            }
        }
        return;
    }
    if (std::find(std::begin(own_short_options), std::end(own_short_options), word[1]) !=
        std::end(own_short_options)) {
        throw usage_error("--srun-args: '{}' is set by the launcher itself", shown);
    }
}

// The one word of the nodes' argv that differs between them (the node rank), if any.
std::optional<size_t> rank_word(const std::vector<NodeCommand>& nodes) {
    std::optional<size_t> found;
    const std::vector<std::string>& first = nodes.front().argv;
    for (const NodeCommand& node : nodes) {
        if (node.argv.size() != first.size()) {
            throw runtime_error("the nodes' commands differ in length");
        }
        for (size_t i = 0; i < first.size(); ++i) {
            if (node.argv[i] == first[i]) {
                continue;
            }
            if ((found && *found != i) ||
                node.argv[i] != fmt::format("--node_rank={}", node.rank)) {
                throw runtime_error("the nodes' commands differ in more than the node rank");
            }
            found = i;
        }
    }
    return found;
}

} // namespace

std::vector<std::string> parse_srun_args(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
            continue;
        }
        in_word = true;
        if (c == '\\') {
            if (++i < text.size()) {
                word += text[i];
            }
        } else if (c == '\'') {
            size_t end = text.find('\'', i + 1);
            if (end == std::string_view::npos) {
                throw usage_error("--srun-args: unterminated ' quote");
            }
            word.append(text.substr(i + 1, end - i - 1));
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= text.size()) {
                    throw usage_error("--srun-args: unterminated \" quote");
                }
                if (text[i] == '"') {
                    break;
                }
                if (text[i] == '\\' && i + 1 < text.size() &&
                    std::string_view("\\\"$`").find(text[i + 1]) != std::string_view::npos) {
                    ++i;
                }
                word += text[i];
            }
        } else {
            word += c;
        }
    }
    if (in_word) {
        words.push_back(std::move(word));
    }
    for (const std::string& each : words) {
        check_srun_word(each);
    }
    return words;
}

std::string srun_task_script(const std::vector<NodeCommand>& nodes, bool allocated) {
    if (nodes.empty()) {
        throw runtime_error("no nodes to run");
    }
    const std::vector<std::string>& argv = nodes.front().argv;
    std::optional<size_t> master;
    std::string script;
    if (allocated) {
        script = "r=${SLURM_NODEID-}\n"
                 "case $r in ''|*[!0-9]*) echo \"colossalai: no node id from Slurm "
                 "(SLURM_NODEID='$r')\" >&2; exit 127 ;; esac\n"
                 "m=$(printf '%s\\n' \"${SLURM_STEP_NODELIST-}\" | "
                 "sed 's/\\[\\([0-9]*\\)[^]]*\\]/\\1/g; s/,.*//')\n";
        auto found = std::find(argv.begin(), argv.end(), "--master_addr=" + nodes.front().host);
        if (found != argv.end()) {
            master = static_cast<size_t>(found - argv.begin());
        }
    } else {
        script = "case ${SLURMD_NODENAME-} in\n";
        for (const NodeCommand& node : nodes) {
            script += fmt::format("{}) r={} ;;\n", util::shell_quote(node.host), node.rank);
        }
        script += "*) echo \"colossalai: the Slurm node '${SLURMD_NODENAME-}' is not one of the "
                  "run's hosts\" >&2; exit 127 ;;\nesac\n";
    }
    script += "printf '\\036colossalai-task-start %s %s\\n' \"$r\" \"${SLURMD_NODENAME-}\"\n"
              "printf '\\036colossalai-task-start %s %s\\n' \"$r\" \"${SLURMD_NODENAME-}\" >&2\n";
    // The preflight, as in ssh's node wrapper: a failed check is named on stdout, then the task
    // ends with the preflight's status, its command not started.
    const NodeCommand& first = nodes.front();
    std::string interfaces;
    for (const std::string& name : first.preflight.interfaces) {
        interfaces += (interfaces.empty() ? "" : ",") + name;
    }
    // (The markers' first byte, RS, written as printf's \036.)
    script += fmt::format("cai_f() {{ printf '\\036colossalai-failed %s\\n' \"$1\"; printf "
                          "'\\036colossalai-task-exit {0}\\n'; printf "
                          "'\\036colossalai-task-exit {0}\\n' >&2; exit {0}; }}\n",
                          job::preflight_exit_status);
    script +=
        fmt::format("cai_d={} cai_c={} cai_i={}\n", util::shell_quote(first.working_directory),
                    util::shell_quote(argv.front()), util::shell_quote(interfaces));
    script += master ? "cai_m=$m\n"
                     : fmt::format("cai_m={}\n", util::shell_quote(first.preflight.master_address));
    script += job::preflight_shell("cai_f", "cai_d", "cai_c", "cai_m", "cai_i");
    std::optional<size_t> rank = rank_word(nodes);
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) {
            script += ' ';
        }
        if (rank && i == *rank) {
            script += "\"--node_rank=$r\"";
        } else if (master && i == *master) {
            script += "\"--master_addr=$m\"";
        } else {
            script += i == 0 ? util::shell_join({argv[i]}) : util::shell_quote(argv[i]);
        }
    }
    script += "\ns=$?\n"
              "printf '\\036colossalai-task-exit %s\\n' \"$s\"\n"
              "printf '\\036colossalai-task-exit %s\\n' \"$s\" >&2\n"
              "exit \"$s\"\n";
    return script;
}

std::vector<std::string> build_srun_command(const std::vector<NodeCommand>& nodes,
                                            const std::vector<std::string>& srun_args,
                                            bool allocated) {
    std::vector<std::string> argv = {"srun", fmt::format("--nodes={}", nodes.size()),
                                     fmt::format("--ntasks={}", nodes.size()),
                                     "--ntasks-per-node=1"};
    if (!allocated) {
        std::string nodelist;
        for (const NodeCommand& node : nodes) {
            nodelist += (nodelist.empty() ? "" : ",") + node.host;
        }
        argv.push_back("--nodelist=" + nodelist);
    }
    argv.insert(argv.end(), {"--kill-on-bad-exit=0", "--label"});
    argv.insert(argv.end(), srun_args.begin(), srun_args.end());
    argv.insert(argv.end(),
                {"/bin/sh", "-c", srun_task_script(nodes, allocated), "colossalai-task"});
    return argv;
}

std::optional<LabelledLine> parse_labelled_line(std::string_view line) {
    size_t i = line.find_first_not_of(' ');
    if (i == std::string_view::npos) {
        return std::nullopt;
    }
    size_t digits = i;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') {
        ++digits;
    }
    if (digits == i || digits - i > 9 || line.substr(digits, 2) != ": ") {
        return std::nullopt;
    }
    LabelledLine labelled;
    std::from_chars(line.data() + i, line.data() + digits, labelled.task);
    labelled.text = line.substr(digits + 2);
    return labelled;
}

std::string srun_notice(std::string_view line) {
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    std::string_view own = util::starts_with(line, "srun: ") ? "" : "srun: ";
    return fmt::format("colossalai: {}{}\n", own, util::escape_control_bytes(line));
}

std::optional<TaskStart> parse_task_start(std::string_view text) {
    if (!util::starts_with(text, task_start_marker)) {
        return std::nullopt;
    }
    std::string_view rest = text.substr(task_start_marker.size());
    size_t space = rest.find(' ');
    std::optional<int> rank = parse_marker(rest.substr(0, space), "");
    if (!rank) {
        return std::nullopt;
    }
    TaskStart start;
    start.rank = *rank;
    if (space != std::string_view::npos) {
        start.node = std::string(rest.substr(space + 1));
    }
    return start;
}

std::optional<int> parse_marker(std::string_view text, std::string_view marker) {
    if (!util::starts_with(text, marker)) {
        return std::nullopt;
    }
    std::string_view number = text.substr(marker.size());
    int value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) {
        return std::nullopt;
    }
    return value;
}

} // namespace colossalai::run
