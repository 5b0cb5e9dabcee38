// The bound on mpirun's tasks' start, from the plan's own bounds.

#include "colossalai/mpirun/mpirun_transport.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace colossalai::mpirun {
namespace {

using namespace std::chrono_literals;

// mpirun's daemons over ssh two connections deep and each task's preflight (3 × --ssh-timeout),
// and the rendezvous check's listener (twice its bound) when the plan has one.
TEST(ReadyBound, ThreeSshTimeoutsAndTwiceTheRendezvousChecksBound) {
    run::Plan plan;
    EXPECT_EQ(ready_bound(plan), 90s); // --ssh-timeout's default, 30 s; no check
    plan.rendezvous = job::RendezvousPlan{};
    EXPECT_EQ(ready_bound(plan), 110s); // the check's default bound, 10 s
    plan.timings.ssh_timeout = 2500ms;
    plan.rendezvous->bound = 4s;
    EXPECT_EQ(ready_bound(plan), 15500ms);
}

} // namespace
} // namespace colossalai::mpirun
