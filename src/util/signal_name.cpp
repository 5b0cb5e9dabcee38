#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>

#include <array>
#include <csignal>
#include <utility>

namespace colossalai::util {

namespace {

constexpr std::array<std::pair<int, std::string_view>, 16> names{{
    {SIGHUP, "HUP"},
    {SIGINT, "INT"},
    {SIGQUIT, "QUIT"},
    {SIGILL, "ILL"},
    {SIGTRAP, "TRAP"},
    {SIGABRT, "ABRT"},
    {SIGBUS, "BUS"},
    {SIGFPE, "FPE"},
    {SIGKILL, "KILL"},
    {SIGUSR1, "USR1"},
    {SIGSEGV, "SEGV"},
    {SIGUSR2, "USR2"},
    {SIGPIPE, "PIPE"},
    {SIGALRM, "ALRM"},
    {SIGTERM, "TERM"},
    {SIGXCPU, "XCPU"},
}};

} // namespace

std::optional<std::string_view> short_signal_name(int signo) {
    for (const auto& [number, name] : names) {
        if (number == signo) {
            return name;
        }
    }
    return std::nullopt;
}

std::string signal_name(int signo) {
    if (std::optional<std::string_view> name = short_signal_name(signo)) {
        return fmt::format("SIG{}", *name);
    }
    return fmt::format("signal {}", signo);
}

std::optional<int> signal_number(std::string_view name) {
    if (name.starts_with("SIG")) {
        name.remove_prefix(3);
    }
    for (const auto& [number, text] : names) {
        if (text == name) {
            return number;
        }
    }
    return std::nullopt;
}

} // namespace colossalai::util
