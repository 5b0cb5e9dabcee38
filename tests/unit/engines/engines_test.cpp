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

#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace colossalai::engines {
namespace {

// Every row has a name of its own and a refusal; an option is owned by one row only (the options
// all engines read are nobody's), declared whole (how --help shows it, where, how it is read),
// and not given in default options.
TEST(EngineTable, RowsAreNamedOnceAndOwnTheirOptionsAlone) {
    std::set<std::string_view> names;
    std::map<std::string_view, std::string_view> owners;
    for (const run::EngineRow* row : table()) {
        SCOPED_TRACE(row->name);
        EXPECT_FALSE(row->name.empty());
        EXPECT_TRUE(names.insert(row->name).second) << "two engines named " << row->name;
        EXPECT_NE(row->refuse, nullptr);
        EXPECT_EQ(find(row->name), row);
        for (const run::EngineOption& option : row->options) {
            EXPECT_TRUE(option.name.starts_with("--"));
            // An option of one command at least, shown whole by each that offers it.
            EXPECT_TRUE(option.run.offered() || option.check.offered());
            for (const run::EngineOptionShown& shown : {option.run, option.check}) {
                EXPECT_EQ(shown.offered(), shown.follows.starts_with("--"));
                EXPECT_EQ(shown.offered(), !shown.help.empty());
            }
            EXPECT_NE(option.apply, nullptr);
            EXPECT_NE(option.given, nullptr);
            EXPECT_TRUE(owners.emplace(option.name, row->name).second)
                << option.name << " owned by " << owners[option.name] << " and " << row->name;
            EXPECT_FALSE(option.given(run::EngineOptions{}));
        }
    }
    EXPECT_EQ(find("pbs"), nullptr);
    EXPECT_EQ(find(""), nullptr);
}

const run::EngineOption& option_named(std::string_view name) {
    for (const run::EngineRow* row : table()) {
        for (const run::EngineOption& option : row->options) {
            if (option.name == name) {
                return option;
            }
        }
    }
    throw std::logic_error("no engine owns the option");
}

// Each engine reads its own options' values into its own part of the options, as the cli's one
// table hands them over; a bad value is refused as the option's.
TEST(EngineTable, EachEngineReadsItsOwnOptionsIntoItsOwnPart) {
    run::EngineOptions options;
    const run::EngineOption& port = option_named("--ssh-port");
    port.apply(options, port.name, "026");
    EXPECT_EQ(std::get<run::SshLaunch::Given>(options).ssh_port, run::Port{26});
    EXPECT_TRUE(port.given(options));
    EXPECT_EQ(test::usage_message([&] { port.apply(options, port.name, "0x16"); }),
              "--ssh-port '0x16': not a port number (1..65535)");

    const run::EngineOption& client = option_named("--ssh-client");
    EXPECT_FALSE(client.given(options)); // the port alone was given
    client.apply(options, client.name, "openssh");
    EXPECT_EQ(std::get<run::SshLaunch::Given>(options).ssh_client, run::SshClient::openssh);
    EXPECT_EQ(test::usage_message([&] { client.apply(options, client.name, "putty"); }),
              "--ssh-client 'putty': expected libssh or openssh");

    const run::EngineOption& srun_args = option_named("--srun-args");
    EXPECT_FALSE(srun_args.given(options));
    srun_args.apply(options, srun_args.name, "-p gpu");
    EXPECT_EQ(std::get<run::SrunLaunch::Given>(options).srun_args,
              (std::vector<std::string>{"-p", "gpu"}));
    EXPECT_EQ(std::get<run::SshLaunch::Given>(options).ssh_port, run::Port{26});

    // check's --ssh-timeout is the ssh row's too (run's is every engine's, run::Options).
    const run::EngineOption& timeout = option_named("--ssh-timeout");
    EXPECT_FALSE(timeout.run.offered());
    timeout.apply(options, timeout.name, "2.5");
    EXPECT_EQ(std::get<run::SshLaunch::Given>(options).ssh_timeout,
              std::chrono::milliseconds(2500));
    EXPECT_EQ(test::usage_message([&] { timeout.apply(options, timeout.name, "0"); }),
              "--ssh-timeout '0': must be from 0.1 to 3600 seconds");
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

// The --launcher values are the table's names, in its order; no --launcher chooses the first.
// check takes the engines it can reach nodes through.
TEST(EngineTable, LauncherValuesAreTheTablesNames) {
    EXPECT_EQ(names("|"), "ssh|slurm|mpirun");
    EXPECT_EQ(names(" or "), "ssh or slurm or mpirun");
    EXPECT_EQ(names("|", Command::check), "ssh|slurm|mpirun");
    // As --launcher's help lists them, with what each row says of itself there.
    EXPECT_EQ(glossed_names(), "ssh (local children and SSH), slurm (one srun step), or mpirun "
                               "(one mpirun, Open MPI or MPICH)");
    EXPECT_EQ(glossed_names(Command::check),
              "ssh, slurm (one srun step; alone, inside an allocation: the allocation's nodes), or "
              "mpirun (one mpirun, Open MPI or MPICH)");
    EXPECT_EQ(&chosen(run::Options{}), table().front());
    run::Options slurm;
    slurm.engine = find("slurm");
    EXPECT_EQ(&chosen(slurm), find("slurm"));
    EXPECT_EQ(find("slurm", Command::check), find("slurm"));
    EXPECT_EQ(find("ssh", Command::check), find("ssh"));
    EXPECT_EQ(&chosen(run::CheckOptions{}), table().front());
    run::CheckOptions check_slurm;
    check_slurm.engine = find("slurm", Command::check);
    EXPECT_EQ(&chosen(check_slurm), find("slurm"));
}

// A row without a way for check serves run alone.
TEST(EngineTable, CheckTakesOnlyTheEnginesItReachesNodesThrough) {
    for (const run::EngineRow* row : table()) {
        SCOPED_TRACE(row->name);
        EXPECT_EQ(find(row->name, Command::check), row->check_nodes != nullptr ? row : nullptr);
        EXPECT_EQ(names("|", Command::check).find(row->name) != std::string::npos,
                  row->check_nodes != nullptr);
    }
}

run::Options script_options() {
    run::Options options;
    options.script = "train.py";
    return options;
}

// Each row refuses the options of the others in its own words, and checks its own.
TEST(EngineValidation, AnotherEnginesOptionIsRefusedInTheChosenEnginesWords) {
    run::Options slurm = script_options();
    slurm.engine = find("slurm");
    slurm.host = run::parse_host_list("node1", "--host");
    validate(slurm);
    auto& slurm_ssh = std::get<run::SshLaunch::Given>(slurm.engine_options);
    slurm_ssh.ssh_port = run::Port{22};
    EXPECT_EQ(test::usage_message([&] { validate(slurm); }),
              "--ssh-port is for --launcher ssh (srun starts the nodes' jobs)");
    slurm_ssh.ssh_port.reset();
    slurm_ssh.ssh_client = run::SshClient::openssh;
    EXPECT_EQ(test::usage_message([&] { validate(slurm); }),
              "--ssh-client is for --launcher ssh (srun starts the nodes' jobs)");
    slurm_ssh.ssh_client.reset();
    std::get<run::SrunLaunch::Given>(slurm.engine_options).srun_args =
        std::vector<std::string>{"-p", "gpu"};
    validate(slurm);

    run::Options ssh = script_options();
    std::get<run::SshLaunch::Given>(ssh.engine_options) = {run::Port{22}, run::SshClient::openssh,
                                                           std::nullopt};
    validate(ssh);
    ssh.engine = find("ssh"); // named, as by default
    validate(ssh);
    std::get<run::SrunLaunch::Given>(ssh.engine_options).srun_args =
        std::vector<std::string>{"-p", "gpu"};
    EXPECT_EQ(test::usage_message([&] { validate(ssh); }), "--srun-args needs --launcher slurm");
}

// Under check, each row owns its own options of check, refuses another's in its own words, and
// says which allocations and hosts it cannot check (cluster_check and the cli ask the row).
TEST(EngineCheckColumns, EachRowSaysWhatCheckThroughItRefuses) {
    const run::EngineRow& ssh = *find("ssh", Command::check);
    const run::EngineRow& slurm = *find("slurm", Command::check);
    EXPECT_EQ(check_options(ssh), (std::vector<std::string_view>{"--ssh-port", "--ssh-timeout"}));
    EXPECT_EQ(check_options(slurm), std::vector<std::string_view>{"--srun-args"});
    EXPECT_EQ(ssh.check_refuse(check_options(slurm), "slurm"),
              "--srun-args needs --launcher slurm");
    EXPECT_EQ(slurm.check_refuse(check_options(ssh), "ssh"),
              "--ssh-port and --ssh-timeout are for --launcher ssh (srun starts the checks)");
    EXPECT_FALSE(ssh.check_alone_checks_allocation);
    EXPECT_TRUE(slurm.check_alone_checks_allocation);

    // ssh reaches any allocation's nodes and any host; srun a Slurm allocation's, as its user.
    EXPECT_EQ(ssh.check_allocation, nullptr);
    EXPECT_EQ(ssh.check_host, nullptr);
    const std::string needs_nodes = "--launcher slurm needs the nodes: --host or --hostfile, or "
                                    "run it inside a Slurm allocation (salloc, sbatch)";
    EXPECT_EQ(test::usage_message([&] { slurm.check_allocation(std::nullopt); }), needs_nodes);
    run::SchedulerVariable pbs{run::SchedulerKind::pbs, run::SchedulerFormat::slot_lines,
                               "PBS_NODEFILE", "/var/spool/nodes"};
    EXPECT_EQ(test::usage_message([&] { slurm.check_allocation(pbs); }), needs_nodes);
    slurm.check_allocation(run::SchedulerVariable{run::SchedulerKind::slurm,
                                                  run::SchedulerFormat::host_list,
                                                  "SLURM_JOB_NODELIST", "n[1-2]"});
    slurm.check_host(run::parse_host("node1", "--host"));
    EXPECT_EQ(test::usage_message([&] { slurm.check_host(run::parse_host("me@node1", "--host")); }),
              "--launcher slurm: host 'me@node1' names a user; Slurm runs every task as the user "
              "who starts srun");
}

TEST(EngineValidation, SlurmRefusesGpuIndicesAndSshTakesThem) {
    run::Options options = script_options();
    options.hostfile = "hosts";
    options.exclude = run::parse_host_selection("w0:0", "--exclude");
    validate(options);
    options.engine = find("slurm");
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

// Who runs the rendezvous check: SSH's launcher with every node on this machine, its transports
// with a remote node (the wrappers, and a local node as the launcher's child in the same
// turns); srun's tasks; nobody without a planned check.
TEST(EnginesRendezvous, TheEngineSaysWhoChecks) {
    using job::RendezvousWay;
    auto way = [](run::LaunchIntent launch, std::vector<job::NodeCommand> nodes) {
        run::Plan plan = plan_of(std::move(launch), std::move(nodes));
        EXPECT_EQ(rendezvous_way(plan), RendezvousWay::none);
        plan.rendezvous = job::RendezvousPlan{};
        return rendezvous_way(plan);
    };
    EXPECT_EQ(way(run::SshLaunch{}, {node(0, "localhost", true), node(1, "127.0.0.2", true)}),
              RendezvousWay::launcher);
    EXPECT_EQ(way(run::SshLaunch{}, {node(0, "node1", false), node(1, "node2", false)}),
              RendezvousWay::transports);
    EXPECT_EQ(way(run::SshLaunch{}, {node(0, "localhost", true), node(1, "node2", false)}),
              RendezvousWay::transports);
    EXPECT_EQ(way(run::SrunLaunch{}, {node(0, "node1", false), node(1, "node2", false)}),
              RendezvousWay::transports);
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
