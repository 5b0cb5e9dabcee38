#include "colossalai/cluster_check/report.hpp"

#include "colossalai/check/report.hpp"
#include "colossalai/check/rules.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace colossalai::cluster_check {

namespace {

using json = nlohmann::ordered_json;

struct Column {
    std::vector<std::size_t> nodes;
    std::string header; // the hosts, comma-separated
    std::vector<check::ReportRow> rows;
    std::vector<check::Advice> advice;
};

// Columns on a terminal: code points, not bytes (the ✓ is three bytes, one column).
std::size_t width(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string pad(std::string text, std::size_t to) {
    std::size_t have = width(text);
    if (have < to) {
        text.append(to - have, ' ');
    }
    return text;
}

bool same_rows(const std::vector<check::ReportRow>& a, const std::vector<check::ReportRow>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const check::ReportRow& x, const check::ReportRow& y) {
                          return x.label == y.label && x.value == y.value;
                      });
}

std::string host_list(const std::vector<NodeFacts>& nodes, const std::vector<std::size_t>& which) {
    std::vector<std::string_view> hosts;
    for (std::size_t i : which) {
        hosts.push_back(nodes[i].host);
    }
    return fmt::format("{}", fmt::join(hosts, ", "));
}

// Every label of any column in report order: a label missing from the list so far is put after
// the label that precedes it in its own column (GPU rows differ in number).
std::vector<std::string> labels_of(const std::vector<Column>& table, check::Section section) {
    std::vector<std::string> labels;
    for (const Column& column : table) {
        auto at = labels.begin();
        for (const check::ReportRow& row : column.rows) {
            if (row.section != section) {
                continue;
            }
            auto found = std::find(labels.begin(), labels.end(), row.label);
            at = found != labels.end() ? found + 1 : labels.insert(at, row.label) + 1;
        }
    }
    return labels;
}

void render_section(std::string& out, const std::vector<Column>& table, check::Section section,
                    std::string_view title) {
    out += fmt::format("\n------------ {} ------------\n", title);
    std::vector<std::string> labels = labels_of(table, section);
    std::size_t label_width = width("Hosts");
    for (const std::string& label : labels) {
        label_width = std::max(label_width, width(label));
    }
    // cells[row][column], row 0 the hosts.
    std::vector<std::vector<std::string>> cells;
    cells.emplace_back();
    for (const Column& column : table) {
        cells.back().push_back(util::escape_control_bytes(column.header));
    }
    for (const std::string& label : labels) {
        cells.emplace_back();
        for (const Column& column : table) {
            auto row = std::find_if(column.rows.begin(), column.rows.end(),
                                    [&](const check::ReportRow& r) {
                                        return r.section == section && r.label == label;
                                    });
            cells.back().push_back(row != column.rows.end() ? util::escape_control_bytes(row->value)
                                                            : std::string("-"));
        }
    }
    std::vector<std::size_t> widths(table.size(), 0);
    for (const auto& row : cells) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], width(row[c]));
        }
    }
    for (std::size_t r = 0; r < cells.size(); ++r) {
        std::string line =
            pad(r == 0 ? std::string("Hosts") : labels[r - 1] + ":", label_width + 2);
        for (std::size_t c = 0; c < cells[r].size(); ++c) {
            line += c + 1 < cells[r].size() ? pad(cells[r][c], widths[c] + 3) : cells[r][c];
        }
        out += line + "\n";
    }
    bool first = true;
    for (const Column& column : table) {
        for (const check::Advice& advice : column.advice) {
            if (advice.section != section) {
                continue;
            }
            if (first) {
                out += "\nAdvice:\n";
                first = false;
            }
            out += fmt::format("- {}: {}\n", util::escape_control_bytes(column.header),
                               util::escape_control_bytes(advice.text));
        }
    }
}

// A column's header: its hosts, or for a configuration of many the first three and a count (the
// whole list is printed above the table).
std::string header_of(const std::vector<NodeFacts>& nodes, const std::vector<std::size_t>& group) {
    constexpr std::size_t shown = 3;
    if (group.size() <= shown + 1) {
        return host_list(nodes, group);
    }
    std::vector<std::size_t> first(group.begin(), group.begin() + shown);
    return fmt::format("{} +{}", host_list(nodes, first), group.size() - shown);
}

std::vector<Column> make_table(const std::vector<NodeFacts>& nodes) {
    std::vector<Column> table;
    for (const std::vector<std::size_t>& group : columns(nodes)) {
        Column column;
        column.nodes = group;
        column.header = header_of(nodes, group);
        const check::Facts& facts = nodes[group.front()].facts;
        check::Checks checks = check::evaluate(facts);
        column.rows = check::report_rows(facts, checks);
        column.advice = check::advise(facts, checks);
        table.push_back(std::move(column));
    }
    return table;
}

std::string mark(const std::optional<bool>& verdict) {
    return verdict ? (*verdict ? "\u2713" : "x") : "N/A";
}

struct Verdict {
    const char* key;   // JSON
    const char* label; // text
    std::optional<bool> value;
};

std::vector<Verdict> verdicts(const AcrossNodes& across) {
    return {{"same_torch", "Same PyTorch version", across.same_torch},
            {"same_torch_cuda", "Same CUDA version required by PyTorch", across.same_torch_cuda},
            {"same_system_cuda", "Same system CUDA version", across.same_system_cuda},
            {"same_colossalai", "Same Colossal-AI version and AOT build", across.same_colossalai},
            {"same_driver_cuda", "Same driver CUDA version", across.same_driver_cuda},
            {"same_gpus", "Same GPU model and count", across.same_gpus}};
}

} // namespace

std::vector<std::vector<std::size_t>> columns(const std::vector<NodeFacts>& nodes,
                                              std::size_t per_host_limit) {
    std::vector<std::vector<std::size_t>> groups;
    std::vector<std::vector<check::ReportRow>> keys;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        std::vector<check::ReportRow> rows =
            check::report_rows(nodes[i].facts, check::evaluate(nodes[i].facts));
        auto found = nodes.size() <= per_host_limit
                         ? keys.end()
                         : std::find_if(keys.begin(), keys.end(),
                                        [&](const auto& key) { return same_rows(key, rows); });
        if (found == keys.end()) {
            groups.push_back({i});
            keys.push_back(std::move(rows));
        } else {
            groups[static_cast<std::size_t>(found - keys.begin())].push_back(i);
        }
    }
    return groups;
}

std::string render_cluster_text(const std::vector<NodeFacts>& nodes,
                                const std::vector<Unreachable>& unreachable,
                                const AcrossNodes& across) {
    std::size_t total = nodes.size() + unreachable.size();
    std::string out =
        fmt::format("#### Installation Report: {} node{} ####\n", total, total == 1 ? "" : "s");
    std::vector<Column> table = make_table(nodes);
    out += fmt::format("Checked: {} of {}", nodes.size(), total);
    if (nodes.size() > 4) {
        out += fmt::format(", {} configuration{}:\n", table.size(), table.size() == 1 ? "" : "s");
        for (std::size_t c = 0; c < table.size(); ++c) {
            out += fmt::format("{}. {}\n", c + 1,
                               util::escape_control_bytes(host_list(nodes, table[c].nodes)));
        }
    } else {
        out += "\n";
    }
    if (!unreachable.empty()) {
        out += "Not checked:\n";
        for (const Unreachable& host : unreachable) {
            out += fmt::format("- {}: {}\n", util::escape_control_bytes(host.host),
                               util::escape_control_bytes(host.reason));
        }
    }
    if (!nodes.empty()) {
        render_section(out, table, check::Section::environment, "Environment");
        render_section(out, table, check::Section::aot, "CUDA Extensions AOT Compilation");
        render_section(out, table, check::Section::compatibility, "Compatibility");
    }
    out += "\n------------ Across nodes ------------\n";
    for (const Verdict& verdict : verdicts(across)) {
        out += fmt::format("{}: {}\n", verdict.label, mark(verdict.value));
    }
    out += "\nNote:\n"
           "1. Each column is one node, or with more than four nodes one configuration: the "
           "nodes named in its header report the same values.\n"
           "2. Across nodes: \u2713 when every checked node has the same value, x when two "
           "differ, N/A when fewer than two nodes were checked or none knows the value.\n"
           "3. The notes on each line are those of `colossalai check -i` (docs/check.md).\n"
           "4. The exit status is 255 when a node could not be checked, else 1 when a node has "
           "an x or the nodes differ, else 0.\n";
    return out;
}

std::string render_cluster_json(const std::vector<NodeFacts>& nodes,
                                const std::vector<Unreachable>& unreachable,
                                const AcrossNodes& across) {
    json report;
    report["schema_version"] = 3;
    json per_node = json::object();
    for (const NodeFacts& node : nodes) {
        // One renderer of a node's object: the local report's, read back.
        per_node[node.host] =
            json::parse(check::render_json(node.facts, check::evaluate(node.facts)));
    }
    json failed = json::object();
    for (const Unreachable& host : unreachable) {
        failed[host.host] = host.reason;
    }
    json verdict_object = json::object();
    for (const Verdict& verdict : verdicts(across)) {
        verdict_object[verdict.key] = verdict.value ? json(*verdict.value) : json(nullptr);
    }
    report["nodes"] = std::move(per_node);
    report["unreachable"] = std::move(failed);
    report["across_nodes"] = std::move(verdict_object);
    report["ok"] = cluster_exit_status(nodes, unreachable, across) == 0;
    return report.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace colossalai::cluster_check
