#include "find_local.hpp"
#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/planner.hpp"
#include "colossalai/run/scheduler_hosts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using test::usage_message;
using Names = std::vector<std::string>;

using test::names;

Names names_of(const Plan& plan) {
    Names result;
    for (const NodeCommand& node : plan.nodes) {
        result.push_back(node.host);
    }
    return result;
}

TEST(SchedulerVariable, SlurmComesFirstThenPbsElseNothing) {
    EXPECT_FALSE(find_scheduler_variable({"PATH=/bin", "SLURM_JOB_NODELISTX=a"}));
    auto slurm = find_scheduler_variable(
        {"PBS_NODEFILE=/pbs/nodes", "SLURM_JOB_NODELIST=node[1-2]", "SLURM_NODELIST=old"});
    ASSERT_TRUE(slurm);
    EXPECT_EQ(slurm->kind, SchedulerKind::slurm);
    EXPECT_EQ(slurm->name, "SLURM_JOB_NODELIST");
    EXPECT_EQ(slurm->value, "node[1-2]");
    auto old = find_scheduler_variable({"SLURM_NODELIST=n1"});
    ASSERT_TRUE(old);
    EXPECT_EQ(old->name, "SLURM_NODELIST");
    auto pbs = find_scheduler_variable({"PBS_NODEFILE=/pbs/nodes"});
    ASSERT_TRUE(pbs);
    EXPECT_EQ(pbs->kind, SchedulerKind::pbs);
    EXPECT_EQ(pbs->value, "/pbs/nodes");
}

TEST(SchedulerHosts, ExpandsSlurmNodeListsNatively) {
    SchedulerVariable variable{SchedulerKind::slurm, "SLURM_JOB_NODELIST",
                               "node[1-2],gpu[01-03],login"};
    EXPECT_EQ(names(scheduler_hosts(variable, std::nullopt)),
              (Names{"node1", "node2", "gpu01", "gpu02", "gpu03", "login"}));
    variable.value = "r[1-2]n[01-02]";
    EXPECT_EQ(names(scheduler_hosts(variable, std::nullopt)),
              (Names{"r1n01", "r1n02", "r2n01", "r2n02"}));
}

TEST(SchedulerHosts, BadVariablesAreUsageErrorsNamingThem) {
    SchedulerVariable variable{SchedulerKind::slurm, "SLURM_JOB_NODELIST", " "};
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST is set but empty: no hosts (unset it, or give --host or "
              "--hostfile)");
    variable.value = "node[2-1]";
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST: invalid host range 'node[2-1]': reversed range '2-1'");
    variable.value = "a,a";
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST: duplicate host 'a'");
    SchedulerVariable pbs{SchedulerKind::pbs, "PBS_NODEFILE", ""};
    EXPECT_EQ(usage_message([&] { scheduler_hosts(pbs, std::nullopt); }),
              "PBS_NODEFILE is set but empty: no hosts (unset it, or give --host or --hostfile)");
}

TEST(SchedulerVariable, ATaskOfAParallelStepMayNotTakeTheAllocation) {
    EXPECT_NO_THROW(check_not_in_parallel_step({"SLURM_JOB_NODELIST=n[1-2]"}));
    EXPECT_NO_THROW(check_not_in_parallel_step({"SLURM_STEP_NUM_TASKS=1", "SLURM_PROCID=0"}));
    EXPECT_EQ(usage_message([] {
                  check_not_in_parallel_step({"SLURM_STEP_NUM_TASKS=2", "SLURM_PROCID=1"});
              }),
              "running as task 1 of a Slurm step of 2 tasks (SLURM_STEP_NUM_TASKS): colossalai "
              "run starts every node itself; run it once (in salloc or an sbatch script, not "
              "under srun), or give --host or --hostfile");
    Options options;
    options.script = "t.py";
    options.nproc_per_node = test::nproc("1");
    Context context;
    context.environment = {"SLURM_JOB_NODELIST=n[1-2]", "SLURM_STEP_NUM_TASKS=2"};
    EXPECT_NE(
        usage_message([&] { test::plan_of(options, context); }).find("task ? of a Slurm step"),
        std::string::npos);
    options.host = test::hosts("n1,n2"); // explicit hosts: the user knows what they do
    EXPECT_EQ(test::plan_of(options, context).nodes.size(), 2u);
}

TEST(PbsNodefile, DeduplicatesInOrderAndCountsSlots) {
    std::vector<Host> hosts =
        parse_pbs_nodefile("n2.cluster\nn2.cluster\n\nn1.cluster \nn2.cluster\nn1.cluster\n", "f");
    EXPECT_EQ(names(hosts), (Names{"n2.cluster", "n1.cluster"}));
    EXPECT_EQ(hosts[0].slots, 3);
    EXPECT_EQ(hosts[1].slots, 2);
}

TEST(PbsNodefile, BadFilesAreUsageErrorsWithFileAndLine) {
    EXPECT_EQ(usage_message([] { parse_pbs_nodefile("\n \n", "/pbs/aux/7"); }),
              "PBS_NODEFILE /pbs/aux/7: no hosts in the node file");
    EXPECT_EQ(usage_message([] { parse_pbs_nodefile("n1\nn;2\n", "/pbs/aux/7"); }),
              "PBS_NODEFILE /pbs/aux/7:2: invalid host 'n;2': contains ';'");
}

TEST(SchedulerNotice, SaysWhereTheHostsCameFrom) {
    SchedulerVariable slurm{SchedulerKind::slurm, "SLURM_JOB_NODELIST", "node[1-2]"};
    EXPECT_EQ(scheduler_notice(slurm, 2, 2),
              "using the 2 hosts of the Slurm allocation (SLURM_JOB_NODELIST=node[1-2])");
    SchedulerVariable pbs{SchedulerKind::pbs, "PBS_NODEFILE", "/pbs/aux/7"};
    EXPECT_EQ(scheduler_notice(pbs, 1, 3),
              "using 1 of the 3 hosts of the PBS job (PBS_NODEFILE=/pbs/aux/7)");
    EXPECT_EQ(scheduler_notice(pbs, 1, 1),
              "using the 1 host of the PBS job (PBS_NODEFILE=/pbs/aux/7)");
}

Options script_only() {
    Options options;
    options.script = "train.py";
    return options;
}

Context allocation(std::vector<std::string> environment) {
    Context context;
    context.environment = std::move(environment);
    context.working_directory = "/job";
    context.find_local =
        test::find_local_by([](std::string_view address) { return address == "node1"; });
    return context;
}

TEST(MakePlanFromScheduler, SlurmHostsWithSelectionAndANotice) {
    Options options = script_only();
    options.nproc_per_node = test::nproc("2");
    options.exclude = test::hosts("node2");
    Plan plan = test::plan_of(options, allocation({"SLURM_JOB_NODELIST=node[1-3]"}));
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.nodes[0].host, "node1");
    EXPECT_TRUE(plan.nodes[0].local);
    EXPECT_EQ(plan.nodes[1].host, "node3");
    EXPECT_EQ(plan.nodes[1].argv[4], "--master_addr=node1");
    EXPECT_EQ(plan.notices, (Names{"using 2 of the 3 hosts of the Slurm allocation "
                                   "(SLURM_JOB_NODELIST=node[1-3])"}));
    options.exclude = test::hosts("node9");
    EXPECT_EQ(
        usage_message([&] { test::plan_of(options, allocation({"SLURM_JOB_NODELIST=node1"})); }),
        "--exclude: host 'node9' is not in the Slurm allocation (SLURM_JOB_NODELIST)");
    options.exclude.reset();
    options.num_nodes = 1;
    EXPECT_EQ(names_of(test::plan_of(options, allocation({"SLURM_JOB_NODELIST=node[1-3]"}))),
              Names{"node1"});
}

TEST(MakePlanFromScheduler, PbsSlotsAreADefaultForNprocPerNode) {
    Options options = script_only();
    Context context = allocation({"PBS_NODEFILE=/pbs/aux/7"});
    context.nodefile_text = "node1\nnode1\nnode2\nnode2\n";
    Plan plan = test::plan_of(options, context);
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.nodes[0].argv[1], "--nproc_per_node=2");
    context.nodefile_text = "node1\nnode1\nnode2\n";
    EXPECT_EQ(usage_message([&] { test::plan_of(options, context); }),
              "slots differ in the PBS job (PBS_NODEFILE): 'node1' has slots=2, 'node2' has "
              "slots=1; torchrun runs the same number of processes on every node (give "
              "--nproc_per_node, or make them equal)");
    options.nproc_per_node = test::nproc("8"); // the node file counts CPUs: the option wins
    EXPECT_EQ(test::plan_of(options, context).nodes[1].argv[1], "--nproc_per_node=8");
}

TEST(MakePlanFromScheduler, ExplicitHostsWinAndNothingIsSaid) {
    Options options = script_only();
    options.nproc_per_node = test::nproc("1");
    options.host = test::hosts("a");
    Plan plan = test::plan_of(options, allocation({"SLURM_JOB_NODELIST=node[1-3]"}));
    EXPECT_EQ(names_of(plan), Names{"a"});
    EXPECT_TRUE(plan.notices.empty());
    options.host.reset();
    plan = test::plan_of(options, allocation({}));
    EXPECT_EQ(names_of(plan), Names{"127.0.0.1"});
    EXPECT_TRUE(plan.notices.empty());
    options.include = test::hosts("a");
    EXPECT_EQ(usage_message([&] { test::plan_of(options, allocation({})); }),
              "--include needs --hostfile (or the hosts of a Slurm or PBS job)");
}

TEST(SlurmIdentityVariable, PerTaskNodeAndStepButNotPerJob) {
    for (const char* name : {"SLURM_PROCID",
                             "SLURM_LOCALID",
                             "SLURM_NODEID",
                             "SLURMD_NODENAME",
                             "SLURM_TASK_PID",
                             "SLURM_GTIDS",
                             "SLURM_STEP_ID",
                             "SLURM_STEPID",
                             "SLURM_STEP_NODELIST",
                             "SLURM_STEP_NUM_TASKS",
                             "SLURM_STEP_LAUNCHER_PORT",
                             "SLURM_CPU_BIND",
                             "SLURM_CPU_BIND_LIST",
                             "SLURM_CPU_BIND_TYPE",
                             "SLURM_MEM_BIND_LIST",
                             "SLURM_TOPOLOGY_ADDR",
                             "SLURM_TOPOLOGY_ADDR_PATTERN",
                             "SLURM_CPUS_ON_NODE",
                             "SLURM_GPUS_ON_NODE",
                             "SLURM_JOB_GPUS",
                             "SLURM_LAUNCH_NODE_IPADDR",
                             "SLURM_SRUN_COMM_HOST",
                             "SLURM_SRUN_COMM_PORT",
                             "SLURM_PTY_PORT",
                             "SLURM_PRIO_PROCESS"}) {
        EXPECT_TRUE(is_slurm_identity_variable(name)) << name;
    }
    for (const char* name :
         {"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_NNODES",
          "SLURM_JOB_NUM_NODES", "SLURM_NTASKS", "SLURM_TASKS_PER_NODE", "SLURM_CLUSTER_NAME",
          "SLURM_SUBMIT_DIR", "SLURM_SUBMIT_HOST", "SLURM_JOB_PARTITION", "SLURM_CONF",
          "SLURM_JOB_CPUS_PER_NODE", "SLURM_MEM_PER_NODE", "SLURMD", "SLURM_PROCIDS"}) {
        EXPECT_FALSE(is_slurm_identity_variable(name)) << name;
    }
}

} // namespace
} // namespace colossalai::run
