#include "colossalai/ssh/remote_command.hpp"

#include "colossalai/run/quote.hpp"

#include <fmt/core.h>

#include <csignal>

namespace colossalai::ssh {

namespace {

// Kept on few lines and free of `'` so that it can be single-quoted for any POSIX login shell.
// Names start with `cai_` and are set after the environment is evaluated, so that no exported
// variable can change them.
constexpr std::string_view wrapper_text =
    R"sh(while :; do IFS= read -r cai_l || exit 125; [ "$cai_l" = . ] && break; eval "$cai_l"; done
cai_g=$1 cai_d=$2
shift 2
cd "$cai_d" || exit 126
exec 3<&0 </dev/null
setsid "$@" 3<&- &
cai_p=$!
(
while IFS= read -r cai_s; do
case $cai_s in INT|TERM|HUP|QUIT|USR1|USR2|KILL) kill -s "$cai_s" -- "-$cai_p";; esac
done
kill -s TERM -- "-$cai_p" || exit 0
cai_n=0
while [ "$cai_n" -lt "$cai_g" ] && kill -s 0 -- "-$cai_p"; do sleep 0.1; cai_n=$((cai_n+1)); done
kill -s KILL -- "-$cai_p"
) <&3 >/dev/null 2>&1 &
cai_w=$!
exec 3<&-
wait "$cai_p"
cai_r=$?
kill -s KILL -- "-$cai_p" 2>/dev/null
kill -s KILL "$cai_w" 2>/dev/null
if [ "$cai_r" -gt 128 ] && [ "$cai_r" -lt 193 ]; then trap - "$((cai_r-128))"; kill -s "$((cai_r-128))" "$$"; fi
exit "$cai_r")sh";

} // namespace

std::string_view node_wrapper() {
    return wrapper_text;
}

std::string remote_command(const run::NodeCommand& command, std::chrono::milliseconds kill_grace) {
    long long tenths = (kill_grace.count() + 99) / 100;
    std::vector<std::string> words{"/bin/sh",
                                   "-c",
                                   std::string(wrapper_text),
                                   "colossalai-node",
                                   std::to_string(tenths),
                                   command.working_directory};
    words.insert(words.end(), command.argv.begin(), command.argv.end());
    return "exec " + run::shell_join(words);
}

std::string environment_block(const run::NodeCommand& command) {
    std::string block;
    for (const auto& [name, value] : command.environment) {
        block += fmt::format("export {}={}\n", name, run::shell_quote(value));
    }
    block += ".\n";
    return block;
}

std::optional<std::string> control_line(int signo) {
    switch (signo) {
    case SIGINT:
        return "INT\n";
    case SIGTERM:
        return "TERM\n";
    case SIGHUP:
        return "HUP\n";
    case SIGQUIT:
        return "QUIT\n";
    case SIGUSR1:
        return "USR1\n";
    case SIGUSR2:
        return "USR2\n";
    case SIGKILL:
        return "KILL\n";
    default:
        return std::nullopt;
    }
}

} // namespace colossalai::ssh
