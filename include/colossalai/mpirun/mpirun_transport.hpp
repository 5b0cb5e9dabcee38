#pragma once

#include "colossalai/run/plan.hpp"
#include "colossalai/step/step.hpp"

#include <chrono>
#include <functional>
#include <string_view>

// `--launcher mpirun`: every node's job is one task of a single mpirun.
namespace colossalai::mpirun {

// How long mpirun's tasks may take, from mpirun's start, until every one is ready (its preflight
// and its part of the rendezvous check passed; step::Engine::ready_bound): mpirun's daemons
// started over ssh, two connections deep (Open MPI's tree spawn: a node's daemon starts the next
// nodes'), twice --ssh-timeout; each task's preflight, --ssh-timeout (what the SSH engine gives
// a node's preflight answer beyond its connection); the rendezvous check, twice its bound (node
// 0's listener waits that long), when the plan has one. 3 × 30 s + 2 × 10 s = 110 s by default.
std::chrono::milliseconds ready_bound(const run::Plan& plan);

// A member of the step family (step/step.hpp): mpirun is the launcher process, and this module
// supplies its command (mpirun_command.hpp), its lines (none labelled: each task's lines carry
// its rank; mpirun's own lines are its notices, `colossalai: mpirun: ...`), and the stop
// delivery: the stop and the kill as task_signals' signals to mpirun, which forwards them to
// every task's wrapper, which turns them into SIGTERM and SIGKILL to its job (never mpirun's own
// abort: Open MPI's loses the tasks' statuses and gives the job one second). Each task reports its
// job's status in its exit marker. abandon() kills mpirun, whose daemons then end the tasks; so
// does a launch whose tasks were not all ready within ready_bound(), each node whose task was not
// named as the failure (`mpirun started no task there within N s: is its sshd reachable ...`).
class MpirunTransport : public step::StepTransport {
public:
    // `plan`'s nodes run as tasks of one mpirun (`launch` says which and how), started in `plan`'s
    // working directory with the launcher's environment as the plan read it; each task exports
    // its node's environment itself (mpirun_task_script).
    MpirunTransport(const run::Plan& plan, const run::MpirunLaunch& launch,
                    std::function<void(std::string_view)> notice, step::Spawn spawn = {});
};

} // namespace colossalai::mpirun
