#pragma once

#include "colossalai/launch/transport.hpp"
#include "colossalai/run/plan.hpp"

#include <optional>
#include <string>
#include <vector>

namespace colossalai::launch {

// The preflight checks of run/preflight.hpp for a node on this machine, as the node wrapper runs
// them on a remote one, in the same order: the working directory exists, the command (argv[0])
// is found in the PATH of `environment` (NAME=value), the master address resolves, the named
// network interfaces exist. Returns the first failed check, or nullopt. Blocks only to resolve
// a master address that is a name (numeric addresses need no lookup).
std::optional<run::PreflightFailure> local_preflight(const run::NodeCommand& command,
                                                     const std::vector<std::string>& environment);

// A node on this machine is ready only when its checks pass: this transport runs them in
// start() and hands the node to `local` (exec::LocalTransport) only then; a node that fails
// ends at once with exit status run::preflight_exit_status and its one line.
class LocalPreflightTransport : public Transport {
public:
    explicit LocalPreflightTransport(Transport& local) : m_local(local) {}
    std::unique_ptr<Process> start(const run::NodeCommand& command,
                                   output::NodeOutput& output) override;

private:
    Transport& m_local;
};

} // namespace colossalai::launch
