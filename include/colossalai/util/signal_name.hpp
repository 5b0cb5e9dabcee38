#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace colossalai::util {

// The one table of signal names, for every place that prints or reads one.

// "SIGTERM", "SIGKILL", ... ("signal 42" for a signal the table does not name).
std::string signal_name(int signo);

// The name without "SIG", as SSH's exit-signal message and `kill -s` spell it ("TERM"), or
// nullopt for a signal the table does not name.
std::optional<std::string_view> short_signal_name(int signo);

// The number of "TERM", "KILL", ... (also "SIGTERM"); nullopt for a name the table lacks.
std::optional<int> signal_number(std::string_view name);

} // namespace colossalai::util
