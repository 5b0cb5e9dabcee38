#include "colossalai/launch/local_rendezvous.hpp"

#include <gtest/gtest.h>

namespace colossalai::launch {
namespace {

job::NodeCommand node(int rank, bool local) {
    job::NodeCommand command;
    command.host = "127.0.0." + std::to_string(rank + 1);
    command.rank = rank;
    command.local = local;
    return command;
}

run::Plan two_local_nodes() {
    run::Plan plan;
    plan.nodes = {node(0, true), node(1, true)};
    plan.launch = run::SshLaunch{};
    plan.rendezvous = job::RendezvousPlan{"python3", "t", 0, "127.0.0.1", 29500};
    return plan;
}

TEST(LocalRendezvous, TheLauncherChecksOnlyALaunchOfLocalNodesThatHasACheck) {
    EXPECT_TRUE(checks_rendezvous_locally(two_local_nodes()));
    run::Plan off = two_local_nodes();
    off.rendezvous = std::nullopt; // --no-rendezvous-check, or a single node
    EXPECT_FALSE(checks_rendezvous_locally(off));
    run::Plan remote = two_local_nodes();
    remote.nodes[1].local = false; // the transports' check, not this one
    EXPECT_FALSE(checks_rendezvous_locally(remote));
    run::Plan srun = two_local_nodes();
    srun.launch = run::SrunLaunch{};
    EXPECT_FALSE(checks_rendezvous_locally(srun));
}

TEST(LocalRendezvous, TheDryRunSaysWhoListensAndWhereTheOthersConnect) {
    job::RendezvousPlan check{"python3", "t", 0, "127.0.0.1", 29500};
    EXPECT_EQ(describe_rendezvous_check(check),
              "rendezvous check: node 0 listens on port 29500, the others connect to 127.0.0.1 "
              "port 29500 before the jobs start (--no-rendezvous-check: none)");
    check.listener = std::nullopt;
    check.address = "etcd.example";
    check.port = 2379;
    EXPECT_EQ(describe_rendezvous_check(check),
              "rendezvous check: every node connects to etcd.example port 2379 before the jobs "
              "start (--no-rendezvous-check: none)");
}

} // namespace
} // namespace colossalai::launch
