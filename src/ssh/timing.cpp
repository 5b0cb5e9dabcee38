#include "colossalai/ssh/timing.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace colossalai::ssh {

namespace {

constexpr const char* phase_names[mark_count - 1] = {
    "wait for a worker",   "connect + key exchange",
    "host key check",      "authentication",
    "channel + preflight", "wait for all hosts",
    "first output",        "rest of the output",
    "exit status",         "close",
};

double ms(TimingClock::duration duration) {
    return std::chrono::duration<double, std::milli>(duration).count();
}

} // namespace

std::string render_timing(const std::vector<HostTiming>& hosts, TimingClock::time_point start) {
    std::string text = fmt::format("colossalai: timing of {} SSH hosts, ms: phase median / max, "
                                   "and when the last host ended it (since the launch began)\n",
                                   hosts.size());
    for (std::size_t phase = 0; phase + 1 < mark_count; ++phase) {
        std::vector<double> durations;
        TimingClock::time_point last = start;
        for (const HostTiming& host : hosts) {
            const auto& begin = host.marks[phase];
            const auto& end = host.marks[phase + 1];
            if (begin && end) {
                durations.push_back(ms(*end - *begin));
                last = std::max(last, *end);
            }
        }
        if (durations.empty()) {
            text += fmt::format("  {:<24} -\n", phase_names[phase]);
            continue;
        }
        std::sort(durations.begin(), durations.end());
        text += fmt::format("  {:<24} {:9.1f} / {:9.1f}   done at {:9.1f}   ({} hosts)\n",
                            phase_names[phase], durations[durations.size() / 2], durations.back(),
                            ms(last - start), durations.size());
    }
    return text;
}

} // namespace colossalai::ssh
