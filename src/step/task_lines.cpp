#include "colossalai/step/task_lines.hpp"

#include "colossalai/step/relay.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::step {

namespace {

// A marker as printf's format writes it: `%s` (the rank), RS, then the marker with its own RS
// as printf's \036 (each marker begins with one).
std::string marker_format(std::string_view marker) {
    return "%s\\036\\036" + std::string(marker.substr(1));
}

// The same line on stdout and on stderr: each stream's reader learns it.
std::string on_both_streams(const std::string& command) {
    return command + "\n" + command + " >&2\n";
}

} // namespace

std::string start_marker_shell(std::string_view rank, std::string_view handle,
                               std::string_view node) {
    return on_both_streams(fmt::format("printf '{}%s %s\\n' {} {} {}",
                                       marker_format(task_start_marker), rank, handle, node));
}

std::string failed_check_shell(std::string_view rank) {
    std::string exit = fmt::format("printf '{}{}\\n' {}", marker_format(task_exit_marker),
                                   job::preflight_exit_status, rank);
    // A check that failed because the launcher's stop (cai_x, set by the engine's trap) killed it
    // is no failed check: the task ends unstarted, as stopped.
    return fmt::format("cai_f() {{ [ -z \"${{cai_x-}}\" ] || exit 0; printf '{}%s\\n' {} \"$1\"; "
                       "{}; {} >&2; exit {}; }}\n",
                       marker_format(job::failed_check_marker), rank, exit, exit,
                       job::preflight_exit_status);
}

std::string exit_marker_shell(std::string_view rank, std::string_view status) {
    return on_both_streams(
        fmt::format("printf '{}%s\\n' {} {}", marker_format(task_exit_marker), rank, status));
}

std::string ready_marker_shell(std::string_view rank) {
    return fmt::format("printf '{}\\n' {}\n", marker_format(task_ready_marker), rank);
}

std::string notice_shell(std::string_view rank) {
    return fmt::format("cai_note() {{ printf '{}%s\\n' {} \"$1\"; }}\n",
                       marker_format(job::notice_marker), rank);
}

std::string rendezvous_check_shell(std::string_view rank, std::string_view probe) {
    std::string exit = exit_marker_shell(rank, std::to_string(job::preflight_exit_status));
    return fmt::format(
        "cai_z=$({} </dev/null 2>/dev/null)\ncai_o=$?\n"
        // A check that ran while the launcher stopped the launch (cai_x, set by the engine's
        // trap, which ran once the program ended) is no failed check: not started, as cai_f.
        "[ -z \"${{cai_x-}}\" ] || exit 0\n"
        "printf '%s\\n' \"$cai_z\" | while IFS= read -r cai_v; do case $cai_v in "
        "\"$(printf '\\036')\"*) printf '%s\\036%s\\n' {} \"$cai_v\";; esac; done\n"
        "case $cai_o:$cai_z in 0:*) ;; *\"$(printf '\\036')colossalai-rdzv \"*)\n{}exit {};; "
        "esac\n"
        // A program ended by a signal checked nothing either way: the task ends with its status.
        // (Added when a stop that reached the program and not this shell let srun's job start;
        // the barrier's traps now set cai_x for the launcher's stop, so this is the backstop for
        // a program killed by anything else.)
        "[ \"$cai_o\" -le 128 ] || exit \"$cai_o\"\n",
        probe, rank, exit, job::preflight_exit_status);
}

TaskLine read_task_line(std::string_view line) {
    std::size_t separator = line.find(record_separator);
    std::optional<std::size_t> rank;
    if (separator != std::string_view::npos && separator <= 9 &&
        line.substr(0, separator).find_first_not_of("0123456789") == std::string_view::npos) {
        rank = util::parse_integer<std::size_t>(line.substr(0, separator));
    }
    if (!rank) {
        return Foreign{line};
    }
    std::string_view body = line.substr(separator + 1);
    if (std::optional<FrameBytes> frame = decode_frame(body)) {
        return Frame{*rank, frame->stream, std::move(frame->bytes)};
    }
    if (util::starts_with(body, task_start_marker)) {
        std::string_view rest = body.substr(task_start_marker.size());
        std::size_t space = rest.find(' ');
        if (space != std::string_view::npos) {
            return Started{*rank, std::string(rest.substr(0, space)),
                           std::string(rest.substr(space + 1))};
        }
    }
    if (util::starts_with(body, job::failed_check_marker)) {
        return Failed{*rank, std::string(body.substr(job::failed_check_marker.size()))};
    }
    if (body == task_ready_marker) {
        return Ready{*rank};
    }
    if (util::starts_with(body, job::notice_marker)) {
        return Noticed{*rank, std::string(body.substr(job::notice_marker.size()))};
    }
    if (util::starts_with(body, job::rendezvous_marker)) {
        if (std::optional<job::RendezvousResult> result = job::parse_rendezvous_line(body)) {
            return Rendezvous{*rank, std::move(*result)};
        }
    }
    if (util::starts_with(body, task_exit_marker)) {
        if (std::optional<int> status =
                util::parse_integer<int>(body.substr(task_exit_marker.size()))) {
            return Exited{*rank, *status};
        }
    }
    return Foreign{line};
}

job::Outcome task_outcome(const std::optional<TaskFailure>& failure, int exit_status,
                          const std::set<int>& delivered) {
    if (failure) {
        return job::Outcome::cannot_run(
            std::visit([](const auto& failed) { return job::describe(failed); }, *failure),
            job::preflight_exit_status);
    }
    if (exit_status > 128 && exit_status < 128 + 65 && delivered.count(exit_status - 128) != 0) {
        return job::Outcome::killed(exit_status - 128);
    }
    return job::Outcome::exited(exit_status);
}

} // namespace colossalai::step
