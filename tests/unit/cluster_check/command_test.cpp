// Whether `colossalai check` checks nodes or this machine: the options that name nodes, or an
// engine that alone checks the allocation's nodes (the row's check_alone_checks_allocation).

#include "colossalai/cluster_check/command.hpp"
#include "colossalai/engines/engines.hpp"

#include <gtest/gtest.h>

namespace colossalai::cluster_check {
namespace {

TEST(ClusterMode, NamedNodesOrAnEngineThatFindsThemMakeACheckOfNodes) {
    run::CheckOptions options;
    EXPECT_FALSE(cluster_mode(options));
    options.engine = engines::find("ssh", engines::Command::check);
    EXPECT_FALSE(cluster_mode(options)); // --launcher ssh alone: this machine
    options.engine = engines::find("slurm", engines::Command::check);
    EXPECT_TRUE(cluster_mode(options)); // --launcher slurm alone: the allocation's nodes
    run::CheckOptions host;
    host.host = "n1";
    EXPECT_TRUE(cluster_mode(host));
    run::CheckOptions hostfile;
    hostfile.hostfile = "hosts";
    EXPECT_TRUE(cluster_mode(hostfile));
    run::CheckOptions allocation;
    allocation.allocation = true;
    EXPECT_TRUE(cluster_mode(allocation));
}

} // namespace
} // namespace colossalai::cluster_check
