#pragma once

#include "colossalai/check/facts.hpp"
#include "colossalai/check/rules.hpp"

#include <string>
#include <vector>

namespace colossalai::check {

// One line of the text report: its section, label and value (raw: escaped when rendered).
struct ReportRow {
    Section section;
    std::string label;
    std::string value;
};

// The lines of the text report, in order, without headers, notes and advice.
std::vector<ReportRow> report_rows(const Facts& facts, const Checks& checks);

// The installation report as text: the three sections of the original with their exact labels,
// extra lines (driver, GPUs, paths) after the original ones, and a note under each section.
std::string render_text(const Facts& facts, const Checks& checks);

// The same facts and checks as one JSON object (schema in docs/check.md), indented, ending in
// a newline. Every fact is a string or null, every check true, false or null.
std::string render_json(const Facts& facts, const Checks& checks);

} // namespace colossalai::check
