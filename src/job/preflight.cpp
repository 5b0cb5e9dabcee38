#include "colossalai/job/preflight.hpp"

#include "colossalai/job/node_command.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

namespace colossalai::job {

std::string describe(const PreflightFailure& failure) {
    std::string subject = util::escape_for_message(failure.subject);
    switch (failure.check) {
    case PreflightCheck::working_directory:
        return fmt::format("no working directory '{}' (the launcher's current directory must "
                           "exist on every node: a shared file system, or cd to a path that "
                           "does)",
                           subject);
    case PreflightCheck::command:
        return fmt::format("cannot find '{}' (on the node's PATH; give a Python that has PyTorch "
                           "with --python PATH, or set the node's PATH with -x PATH=...)",
                           subject);
    case PreflightCheck::master_address:
        return fmt::format("cannot resolve master address '{}' (set --master_addr to an address "
                           "every node can reach)",
                           subject);
    case PreflightCheck::network_interface:
        return fmt::format("no network interface '{}' (see 'ip -br link' on the node; "
                           "--network-interface names must exist on every node)",
                           subject);
    case PreflightCheck::helper:
        return fmt::format("cannot find '{}' on the node (--launcher slurm runs each task's job "
                           "under it, so that the job's output crosses srun byte for byte; "
                           "install it there, or use --launcher ssh)",
                           subject);
    }
    return subject;
}

std::optional<PreflightFailure> parse_failed_check(std::string_view what,
                                                   const NodeCommand& command) {
    if (what == "cwd") {
        return PreflightFailure{PreflightCheck::working_directory, command.working_directory};
    }
    if (what == "command") {
        return PreflightFailure{PreflightCheck::command,
                                command.argv.empty() ? "" : command.argv[0]};
    }
    constexpr std::string_view master = "master ";
    if (what.substr(0, master.size()) == master) {
        return PreflightFailure{PreflightCheck::master_address,
                                std::string(what.substr(master.size()))};
    }
    constexpr std::string_view helper = "helper ";
    if (what.substr(0, helper.size()) == helper) {
        return PreflightFailure{PreflightCheck::helper, std::string(what.substr(helper.size()))};
    }
    constexpr std::string_view interface = "interface ";
    if (what.substr(0, interface.size()) == interface) {
        return PreflightFailure{PreflightCheck::network_interface,
                                std::string(what.substr(interface.size()))};
    }
    return std::nullopt;
}

std::string preflight_shell(std::string_view fail, std::string_view directory,
                            std::string_view command, std::string_view master,
                            std::string_view interfaces) {
    return fmt::format(
        "cd \"${{{1}}}\" 2>/dev/null || {0} cwd\n"
        "command -v \"${{{2}}}\" >/dev/null 2>&1 || {0} command\n"
        "case ${{{3}}} in \"\"|*:*) ;; *[!0-9.]*) ! command -v getent >/dev/null 2>&1 || getent "
        "ahosts \"${{{3}}}\" >/dev/null 2>&1 || {0} \"master ${{{3}}}\";; esac\n"
        "if [ -n \"${{{4}}}\" ] && [ -d /sys/class/net ]; then IFS=,; for cai_n in ${{{4}}}; do "
        "[ -e \"/sys/class/net/$cai_n\" ] || {0} \"interface $cai_n\"; done; unset IFS; fi\n",
        fail, directory, command, master, interfaces);
}

} // namespace colossalai::job
