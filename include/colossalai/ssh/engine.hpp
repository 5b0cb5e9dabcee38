#pragma once

// The ssh engine's launch (`--launcher ssh`): its transports and how its dry run names them.

#include "colossalai/job/launch_transports.hpp"
#include "colossalai/run/engine_row.hpp"
#include "colossalai/run/launch_intent.hpp"
#include "colossalai/run/plan.hpp"

#include <memory>
#include <string>

namespace colossalai::ssh {

// `--launcher ssh`: owns --ssh-port and --ssh-client; refuses another engine's option as
// "--srun-args needs --launcher slurm". It reaches the hosts from this machine (a host that is
// this machine is a local node; this machine is the default host), its remote nodes lose the
// launcher's Slurm identity, and its launch intent (SshLaunch) carries the client and the host
// key policy, each node the --ssh-port.
const run::EngineRow& engine_row();

// The transports of `plan`: local nodes as the launcher's children (job::LocalTransport), the
// others over `launch.ssh_client` (libssh's SshTransport or OpenSshTransport) with
// `launch.strict_host_key_checking`; raises the launcher's descriptor limit as the remote nodes
// need (as far as the hard limit allows). A remote node's notice goes to `hooks.notice`.
std::unique_ptr<job::LaunchTransports>
make_transports(const run::Plan& plan, const run::SshLaunch& launch, job::LaunchHooks hooks);

// Who runs `plan`'s rendezvous check (plan.rendezvous): the launcher when every node is on this
// machine, the wrappers after the barrier when every node is remote; nobody for a launch that
// mixes both. Pure.
job::RendezvousWay rendezvous_way(const run::Plan& plan);

// --dry-run: how `node` is reached: "local", "ssh", "ssh port 2222", "openssh port 2222" (the
// client named when it is not the default one). Pure.
std::string dry_run_transport(const run::SshLaunch& launch, const job::NodeCommand& node);

} // namespace colossalai::ssh
