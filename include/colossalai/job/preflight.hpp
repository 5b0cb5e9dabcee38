#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What every node checks before any job starts (part of the two-step start: a node is ready
// only once its checks pass), and what a failed check says. The checks run in the node wrapper
// (ssh/remote_command.hpp) and, for a node on this machine, in the local transport
// (local_preflight.hpp).
namespace colossalai::job {

// The launcher's exit status when a node failed its preflight and nothing was started: distinct
// from a usage error (2), a command that cannot run (127) and a host that cannot be reached
// (255).
inline constexpr int preflight_exit_status = 254;

// What a node checks besides its working directory and its command (argv[0]), which the
// NodeCommand holds.
struct Preflight {
    std::string master_address;          // must resolve on the node (numeric addresses do)
    std::vector<std::string> interfaces; // must exist on the node (--network-interface)
};

// The checks, in the order a node runs them; then what a transport itself needs on the node
// (`helper`: the relay of --launcher slurm, slurm/relay.hpp).
enum class PreflightCheck { working_directory, command, master_address, network_interface, helper };

// A failed check and what it was about (the directory, the command, the address, the name).
struct PreflightFailure {
    PreflightCheck check;
    std::string subject;
};

// The one line a node's failure reads as (after the host's name), with what to do about it.
std::string describe(const PreflightFailure& failure);

struct NodeCommand;

// How a node's shell names a failed check (ssh's node wrapper, srun's task script): a line of
// its own, `failed_check_marker` then `cwd`, `command`, `master ADDRESS`, `interface NAME` or
// `helper PROGRAM`. The
// first byte (ASCII RS) never starts a line of a login banner or a job's text output.
inline constexpr std::string_view failed_check_marker = "\036colossalai-failed ";

// The failure that `what` (the text after the marker) names, its subject taken from `command`
// (an interface's name and the master address the node looked up from `what`: an srun task
// learns the master, node 0's name, only from Slurm); nullopt when `what` names no check.
std::optional<PreflightFailure> parse_failed_check(std::string_view what,
                                                   const NodeCommand& command);

// The checks as POSIX sh lines (no `'` in them), in PreflightCheck's order; the others are the
// names of the shell variables (or positional parameters: `1`) that hold the directory, the
// command, the master address and the comma-separated interfaces; `fail` a command that takes
// the check's name (with its subject: `master ADDRESS`, `interface NAME`) as its one argument
// and must not return. A numeric master address (IPv4 digits
// and dots, or IPv6 with a `:`) starts no `getent`; without getent on the node the address is not
// checked; without /sys/class/net, the interfaces are not. Uses the variable `cai_n`.
std::string preflight_shell(std::string_view fail, std::string_view directory,
                            std::string_view command, std::string_view master,
                            std::string_view interfaces);

} // namespace colossalai::job
