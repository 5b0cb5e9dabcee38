#include "task_lines.hpp"

namespace colossalai::slurm {

SrunLine read_srun_line(std::string_view line) {
    std::optional<run::LabelledLine> labelled = run::parse_labelled_line(line);
    if (!labelled) {
        return SrunMessage{line};
    }
    if (std::optional<run::TaskStart> start = run::parse_task_start(labelled->text)) {
        return TaskStarted{labelled->task, std::move(*start)};
    }
    return TaskText{labelled->task, labelled->text};
}

TaskLine read_task_line(std::string_view text, const job::NodeCommand& command) {
    // A last line without its newline gets the exit marker appended to it.
    if (size_t at = text.find(run::task_exit_marker); at != 0 && at != std::string_view::npos) {
        if (std::optional<int> status = run::parse_marker(text.substr(at), run::task_exit_marker)) {
            return {text.substr(0, at), std::nullopt, status};
        }
        return {text, std::nullopt, std::nullopt};
    }
    if (text.substr(0, job::failed_check_marker.size()) == job::failed_check_marker) {
        std::string_view what = text.substr(job::failed_check_marker.size());
        if (std::optional<job::PreflightFailure> failure = job::parse_failed_check(what, command)) {
            return {{}, std::move(failure), std::nullopt};
        }
    }
    if (std::optional<int> status = run::parse_marker(text, run::task_exit_marker)) {
        return {{}, std::nullopt, status};
    }
    return {text, std::nullopt, std::nullopt};
}

job::Outcome task_outcome(const std::optional<job::PreflightFailure>& failure, int exit_status) {
    if (failure) {
        return job::Outcome::cannot_run(job::describe(*failure), job::preflight_exit_status);
    }
    if (exit_status > 128 && exit_status < 128 + 65) {
        return job::Outcome::killed(exit_status - 128);
    }
    return job::Outcome::exited(exit_status);
}

} // namespace colossalai::slurm
