// The engines as the rest of the launcher sees them: each launch intent alternative reaches its
// engine's transports and its dry-run rendering through one std::visit (src/engines).

#include "usage_message.hpp"

#include "colossalai/engines/engines.hpp"
#include "colossalai/job/local_transport.hpp"
#include "colossalai/run/host_selection.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/ssh/engine.hpp"
#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/ssh_transport.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace colossalai::engines {
namespace {

// Every row has a name of its own and a refusal; every Launcher value has one row; an option is
// owned by one row only (the options all engines read are nobody's).
TEST(EngineTable, RowsAreNamedOnceAndOwnTheirOptionsAlone) {
    std::set<std::string_view> names;
    std::set<run::Launcher> launchers;
    std::map<std::string_view, std::string_view> owners;
    for (const run::EngineRow* row : table()) {
        SCOPED_TRACE(row->name);
        EXPECT_FALSE(row->name.empty());
        EXPECT_TRUE(names.insert(row->name).second) << "two engines named " << row->name;
        EXPECT_TRUE(launchers.insert(row->launcher).second);
        EXPECT_NE(row->refuse, nullptr);
        EXPECT_EQ(find(row->name), row);
        EXPECT_EQ(&engines::row(row->launcher), row);
        for (const run::OwnedOption& option : row->options) {
            EXPECT_TRUE(option.name.starts_with("--"));
            EXPECT_NE(option.given, nullptr);
            EXPECT_TRUE(owners.emplace(option.name, row->name).second)
                << option.name << " owned by " << owners[option.name] << " and " << row->name;
            EXPECT_FALSE(option.given(run::Options{}));
        }
    }
    for (run::Launcher launcher : {run::Launcher::ssh, run::Launcher::slurm}) {
        EXPECT_EQ(launchers.count(launcher), 1u);
    }
    EXPECT_EQ(find("pbs"), nullptr);
    EXPECT_EQ(find(""), nullptr);
}

// The recipe's planning column: every row gives the planner its launch intent (run/ asks the
// row, never the engine's name), and the default engine (the first row) can run on this machine
// by default, as `colossalai run train.py` does.
TEST(EngineTable, EveryRowPlansItsLaunch) {
    for (const run::EngineRow* row : table()) {
        SCOPED_TRACE(row->name);
        EXPECT_NE(row->launch, nullptr);
    }
    EXPECT_EQ(table().front()->needs_hosts, nullptr);
    EXPECT_TRUE(table().front()->reaches_hosts);
}

// The --launcher values are the table's names, in its order (the default first).
TEST(EngineTable, LauncherValuesAreTheTablesNames) {
    EXPECT_EQ(names("|"), "ssh|slurm|mpirun");
    EXPECT_EQ(names(" or "), "ssh or slurm or mpirun");
    EXPECT_EQ(table().front()->launcher, run::Options{}.launcher);
}

run::Options script_options() {
    run::Options options;
    options.script = "train.py";
    return options;
}

// Each row refuses the options of the others in its own words, and checks its own.
TEST(EngineValidation, AnotherEnginesOptionIsRefusedInTheChosenEnginesWords) {
    run::Options slurm = script_options();
    slurm.launcher = run::Launcher::slurm;
    slurm.host = run::parse_host_list("node1", "--host");
    validate(slurm);
    slurm.ssh_port = run::Port{22};
    EXPECT_EQ(test::usage_message([&] { validate(slurm); }),
              "--ssh-port is for --launcher ssh (srun starts the nodes' jobs)");
    slurm.ssh_port.reset();
    slurm.ssh_client = run::SshClient::openssh;
    EXPECT_EQ(test::usage_message([&] { validate(slurm); }),
              "--ssh-client is for --launcher ssh (srun starts the nodes' jobs)");
    slurm.ssh_client.reset();
    slurm.srun_args = std::vector<std::string>{"-p", "gpu"};
    validate(slurm);

    run::Options ssh = script_options();
    ssh.ssh_port = run::Port{22};
    ssh.ssh_client = run::SshClient::openssh;
    validate(ssh);
    ssh.srun_args = std::vector<std::string>{"-p", "gpu"};
    EXPECT_EQ(test::usage_message([&] { validate(ssh); }), "--srun-args needs --launcher slurm");
}

TEST(EngineValidation, SlurmRefusesGpuIndicesAndSshTakesThem) {
    run::Options options = script_options();
    options.hostfile = "hosts";
    options.exclude = run::parse_host_selection("w0:0", "--exclude");
    validate(options);
    options.launcher = run::Launcher::slurm;
    EXPECT_EQ(test::usage_message([&] { validate(options); }),
              "--launcher slurm cannot use GPU indices in --exclude: srun starts one command on "
              "every node (--srun-args '--gpus-per-node=N' selects GPUs there)");
    options.exclude = run::parse_host_selection("w0@w1", "--exclude");
    validate(options);
}

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
