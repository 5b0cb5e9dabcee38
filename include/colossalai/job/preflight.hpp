#pragma once

#include <optional>
#include <string>
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

// The checks, in the order a node runs them.
enum class PreflightCheck { working_directory, command, master_address, network_interface };

// A failed check and what it was about (the directory, the command, the address, the name).
struct PreflightFailure {
    PreflightCheck check;
    std::string subject;
};

// The one line a node's failure reads as (after the host's name), with what to do about it.
std::string describe(const PreflightFailure& failure);

} // namespace colossalai::job
