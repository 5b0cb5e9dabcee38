#include "colossalai/launch/summary.hpp"

#include <fmt/core.h>

#include <csignal>

namespace colossalai::launch {

std::string signal_name(int signo) {
    switch (signo) {
    case SIGHUP:
        return "SIGHUP";
    case SIGINT:
        return "SIGINT";
    case SIGQUIT:
        return "SIGQUIT";
    case SIGABRT:
        return "SIGABRT";
    case SIGKILL:
        return "SIGKILL";
    case SIGSEGV:
        return "SIGSEGV";
    case SIGPIPE:
        return "SIGPIPE";
    case SIGTERM:
        return "SIGTERM";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGUSR1:
        return "SIGUSR1";
    case SIGUSR2:
        return "SIGUSR2";
    default:
        return fmt::format("signal {}", signo);
    }
}

int status_of(const ExitInfo& exit) {
    if (exit.signal != 0) {
        return 128 + exit.signal;
    }
    if (!exit.error.empty()) {
        return exit.code > 0 ? exit.code : 255;
    }
    return exit.code;
}

namespace {

std::string describe(const NodeOutcome& outcome) {
    const ExitInfo& exit = outcome.exit;
    if (exit.success()) {
        return "success";
    }
    std::string reason;
    if (!exit.error.empty()) {
        reason = exit.error;
    } else if (exit.signal != 0) {
        reason = "killed by " + signal_name(exit.signal);
    } else {
        reason = fmt::format("exit code {}", exit.code);
    }
    if (outcome.stopped) {
        reason += ", stopped by the launcher";
    }
    return fmt::format("failure ({})", reason);
}

} // namespace

std::string render_summary(const std::vector<NodeOutcome>& outcomes) {
    std::string text = "====== Training on All Nodes =====\n";
    for (const NodeOutcome& outcome : outcomes) {
        text += fmt::format("{}: {}\n", outcome.host, describe(outcome));
    }
    return text;
}

int launcher_exit_code(const std::vector<NodeOutcome>& outcomes,
                       std::optional<size_t> first_failure, int launcher_signal) {
    if (launcher_signal != 0) {
        return 128 + launcher_signal;
    }
    if (first_failure && *first_failure < outcomes.size()) {
        int status = status_of(outcomes[*first_failure].exit);
        return status == 0 ? 1 : status;
    }
    for (const NodeOutcome& outcome : outcomes) {
        if (!outcome.exit.success()) {
            int status = status_of(outcome.exit);
            return status == 0 ? 1 : status;
        }
    }
    return 0;
}

} // namespace colossalai::launch
