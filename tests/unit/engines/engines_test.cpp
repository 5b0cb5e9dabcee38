// The engines as the rest of the launcher sees them: each launch intent alternative reaches its
// engine's transports and its dry-run rendering through one std::visit (src/engines).

#include "colossalai/engines/engines.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/ssh/engine.hpp"
#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

namespace colossalai::engines {
namespace {

job::NodeCommand node(int rank, std::string host, bool local, std::optional<int> port = {}) {
    job::NodeCommand node;
    node.rank = rank;
    node.host = std::move(host);
    node.local = local;
    node.ssh_port = port;
    node.working_directory = "/w";
    node.argv = {"torchrun", "train.py"};
    return node;
}

run::Plan plan_of(run::LaunchIntent launch, std::vector<job::NodeCommand> nodes) {
    run::Plan plan;
    plan.launch = std::move(launch);
    plan.nodes = std::move(nodes);
    plan.launcher_environment = {"PATH=/bin"};
    return plan;
}

TEST(EnginesDryRun, SshNamesEachNodesWayAndShowsNothingBefore) {
    run::Plan plan =
        plan_of(run::SshLaunch{}, {node(0, "localhost", true, 22), node(1, "node2", false),
                                   node(2, "node3", false, 2222)});
    EXPECT_EQ(dry_run_header(plan), "");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[0]), "local");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[1]), "ssh");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[2]), "ssh port 2222");
    // The client is named when it is not the default one.
    plan.launch = run::SshLaunch{std::nullopt, run::SshClient::openssh};
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[0]), "local");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[1]), "openssh");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[2]), "openssh port 2222");
}

TEST(EnginesDryRun, SlurmShowsSrunsCommandFirstAndEveryNodeAsATask) {
    run::SrunLaunch launch{{"-p", "gpu"}, false};
    run::Plan plan = plan_of(launch, {node(0, "node1", false), node(1, "node2", false, 22)});
    EXPECT_EQ(dry_run_header(plan),
              "srun (one task per node; /bin/sh -c SCRIPT runs its node's command below):\n    " +
                  util::shell_join(slurm::srun_command(plan, launch)) + "\n");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[0]), "slurm");
    EXPECT_EQ(dry_run_transport(plan, plan.nodes[1]), "slurm");
}

TEST(EnginesTransports, SshStartsLocalNodesAsChildrenAndTheOthersOverItsClient) {
    run::Plan plan = plan_of(run::SshLaunch{}, {node(0, "localhost", true), node(1, "n2", false)});
    std::unique_ptr<job::LaunchTransports> transports = make_transports(plan, {});
    EXPECT_NE(dynamic_cast<job::LocalTransport*>(&transports->transport_for(plan.nodes[0])),
              nullptr);
    EXPECT_NE(dynamic_cast<ssh::SshTransport*>(&transports->transport_for(plan.nodes[1])), nullptr);
    EXPECT_FALSE(transports->busy());

    plan.launch = run::SshLaunch{std::nullopt, run::SshClient::openssh};
    transports = make_transports(plan, {});
    EXPECT_NE(dynamic_cast<ssh::OpenSshTransport*>(&transports->transport_for(plan.nodes[1])),
              nullptr);
    EXPECT_FALSE(transports->busy());
}

TEST(EnginesTransports, AllLocalNeedsNoClientAndReportsNoTiming) {
    run::Plan plan = plan_of(run::SshLaunch{}, {node(0, "localhost", true)});
    std::unique_ptr<job::LaunchTransports> transports = make_transports(plan, {});
    EXPECT_NE(dynamic_cast<job::LocalTransport*>(&transports->transport_for(plan.nodes[0])),
              nullptr);
    EXPECT_EQ(transports->timing_report(), "");
    EXPECT_FALSE(transports->busy());
}

TEST(EnginesTransports, SlurmStartsEveryNodeThroughOneSrun) {
    run::Plan plan = plan_of(run::SrunLaunch{}, {node(0, "node1", false), node(1, "node2", false)});
    std::unique_ptr<job::LaunchTransports> transports = make_transports(plan, {});
    job::Transport& first = transports->transport_for(plan.nodes[0]);
    EXPECT_NE(dynamic_cast<slurm::SlurmTransport*>(&first), nullptr);
    EXPECT_EQ(&transports->transport_for(plan.nodes[1]), &first);
    EXPECT_EQ(transports->timing_report(), "");
}

} // namespace
} // namespace colossalai::engines
