#include "task_lines.hpp"

#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::slurm {

namespace {

bool is_number(std::string_view text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

} // namespace

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
    labelled.task = *util::parse_integer<int>(line.substr(i, digits - i)); // at most 9 digits
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

std::string slurm_step(std::string_view handle) {
    size_t dot = handle.find('.');
    if (dot != std::string_view::npos && is_number(handle.substr(0, dot)) &&
        is_number(handle.substr(dot + 1))) {
        return std::string(handle);
    }
    return {};
}

} // namespace colossalai::slurm
