#pragma once

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::job {

// Runs a node's job as a child process of the launcher — no shell, no SSH — in its own process
// group, with `launcher_environment` (`NAME=value`: the plan's snapshot of the launcher's, see
// run::Plan) changed as the node's command says, the node's working directory, stdin from
// /dev/null. The stop sequence: stop(N) sends N to the job's process group, kill() sends it
// SIGKILL; a guardian process stops the group if the launcher dies (see spawn.hpp), and stops
// what the job leaves behind in its group when it ends.
class LocalTransport : public Transport {
public:
    LocalTransport(std::vector<std::string> launcher_environment,
                   std::chrono::milliseconds kill_grace)
        : m_launcher_environment(std::move(launcher_environment)), m_kill_grace(kill_grace) {}

    std::unique_ptr<Process> start(const NodeCommand& command, output::NodeOutput& output) override;

private:
    std::vector<std::string> m_launcher_environment;
    std::chrono::milliseconds m_kill_grace;
};

// Starts `request` now as a local job like LocalTransport's (own process group, guardian,
// signals to the group), for a transport that runs its nodes through one local program (srun).
// A job that cannot be started ends at once with an error result (code 127).
std::unique_ptr<Process> start_local_job(const exec::SpawnRequest& request,
                                         output::NodeOutput& output,
                                         std::chrono::milliseconds kill_grace);

} // namespace colossalai::job
