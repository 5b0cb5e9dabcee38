#include "task_lines.hpp"

#include "relay.hpp"

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
    if (space == std::string_view::npos) {
        return start;
    }
    rest = rest.substr(space + 1);
    space = rest.find(' ');
    std::string_view step = rest.substr(0, space);
    size_t dot = step.find('.');
    if (dot != std::string_view::npos && is_number(step.substr(0, dot)) &&
        is_number(step.substr(dot + 1))) {
        start.step = std::string(step);
    }
    if (space != std::string_view::npos) {
        start.node = std::string(rest.substr(space + 1));
    }
    return start;
}

std::optional<int> parse_marker(std::string_view text, std::string_view marker) {
    if (!util::starts_with(text, marker)) {
        return std::nullopt;
    }
    return util::parse_integer<int>(text.substr(marker.size()));
}

SrunLine read_srun_line(std::string_view line) {
    std::optional<LabelledLine> labelled = parse_labelled_line(line);
    if (!labelled) {
        return SrunMessage{line};
    }
    if (std::optional<TaskStart> start = parse_task_start(labelled->text)) {
        return TaskStarted{labelled->task, std::move(*start)};
    }
    return TaskText{labelled->task, labelled->text};
}

TaskLine read_task_line(std::string_view text, const job::NodeCommand& command) {
    if (std::optional<std::string> bytes = decode_frame(text)) {
        return {std::move(*bytes), std::nullopt, std::nullopt};
    }
    if (util::starts_with(text, job::failed_check_marker)) {
        std::string_view what = text.substr(job::failed_check_marker.size());
        if (std::optional<job::PreflightFailure> failure = job::parse_failed_check(what, command)) {
            return {{}, std::move(failure), std::nullopt};
        }
    }
    if (std::optional<int> status = parse_marker(text, task_exit_marker)) {
        return {{}, std::nullopt, status};
    }
    return {std::string(text) + '\n', std::nullopt, std::nullopt};
}

job::Outcome task_outcome(const std::optional<job::PreflightFailure>& failure, int exit_status,
                          const std::set<int>& delivered) {
    if (failure) {
        return job::Outcome::cannot_run(job::describe(*failure), job::preflight_exit_status);
    }
    if (exit_status > 128 && exit_status < 128 + 65 && delivered.count(exit_status - 128) != 0) {
        return job::Outcome::killed(exit_status - 128);
    }
    return job::Outcome::exited(exit_status);
}

} // namespace colossalai::slurm
