#pragma once

#include "colossalai/job/rendezvous_check.hpp"
#include "colossalai/run/plan.hpp"

#include <optional>
#include <ostream>
#include <string>

// The rendezvous check (job/rendezvous_check.hpp) of a launch whose nodes are all children of
// the launcher (`--host 127.0.0.1,127.0.0.2`, several names of this machine). A launch with
// remote nodes checks through its transports (the node wrapper's phase after the barrier,
// srun's task script), not here.
namespace colossalai::launch {

// Whether the launcher runs the check itself before the jobs start: the engine says so
// (engines::rendezvous_way: every node is a local child).
bool checks_rendezvous_locally(const run::Plan& plan);

// The dry run's line for the check that will run: who listens, where the others connect.
std::string describe_rendezvous_check(const job::RendezvousPlan& check);

// Runs the check for the local nodes, before any job starts: the listener first, a child of
// this process with a pipe on its stdin, until it says "listening"; then each other node's probe
// in turn, each a child run by exec::capture within the check's bound; then the listener is told
// to stop (EOF on its stdin) and reaped, killed by its process group if it has not ended. A
// warning (the own-name rule with gloo's interface given) is written to `err`. When a node
// failed: the summary (one line per node: the failed one's result, the others not started) to
// `err` and the launcher's exit status (job::preflight_exit_status) returned; nullopt when every
// node passed. A probe that cannot run (no such Python on the node) says nothing: the node's
// preflight then names what is missing.
std::optional<int> check_rendezvous_locally(const run::Plan& plan, std::ostream& err);

} // namespace colossalai::launch
