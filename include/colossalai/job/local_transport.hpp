#pragma once

#include "colossalai/exec/spawn.hpp"
#include "colossalai/job/process.hpp"
#include "colossalai/job/rendezvous_check.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace colossalai::job {

// Runs a node's job as a child process of the launcher — no shell, no SSH — in its own process
// group, with `launcher_environment` (`NAME=value`: the plan's snapshot of the launcher's, see
// run::Plan) changed as the node's command says, the node's working directory, stdin from
// /dev/null. The stop sequence: stop(N) sends N to the job's process group, kill() sends it
// SIGKILL; a guardian process stops the group if the launcher dies (see spawn.hpp), and stops
// what the job leaves behind in its group when it ends.
//
// `rendezvous`: a launch that mixes this machine and remote hosts, whose check the transports run
// after the barrier (RendezvousWay::transports): a node here takes its part in the same turns as
// the remote ones (Process::check_rendezvous), its probe a child of the launcher read in the
// loop — the listener until go() (killed and reaped then, so that the port is free for the job),
// a connection until it ends. A warning of its probe (its own name on loopback, gloo's interface
// given) is one line through `notice`. Without it, local nodes take no part (an all-local
// launch is checked before execute(): launch/local_rendezvous.hpp).
class LocalTransport : public Transport {
public:
    LocalTransport(std::vector<std::string> launcher_environment,
                   std::chrono::milliseconds kill_grace,
                   std::optional<RendezvousPlan> rendezvous = std::nullopt,
                   std::function<void(std::string_view)> notice = {})
        : m_launcher_environment(std::move(launcher_environment)), m_kill_grace(kill_grace),
          m_rendezvous(std::move(rendezvous)), m_notice(std::move(notice)) {}

    std::unique_ptr<Process> start(const NodeCommand& command, output::NodeOutput& output) override;

private:
    std::vector<std::string> m_launcher_environment;
    std::chrono::milliseconds m_kill_grace;
    std::optional<RendezvousPlan> m_rendezvous;
    std::function<void(std::string_view)> m_notice;
};

// Starts `request` now as a local job like LocalTransport's (own process group, guardian,
// signals to the group), for a transport that runs its nodes through one local program (srun).
// A job that cannot be started ends at once with an error result (code 127).
std::unique_ptr<Process> start_local_job(const exec::SpawnRequest& request,
                                         output::NodeOutput& output,
                                         std::chrono::milliseconds kill_grace);

} // namespace colossalai::job
