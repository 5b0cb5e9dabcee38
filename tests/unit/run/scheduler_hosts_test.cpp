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
    SchedulerVariable variable{SchedulerKind::slurm, SchedulerFormat::host_list,
                               "SLURM_JOB_NODELIST", "node[1-2],gpu[01-03],login"};
    EXPECT_EQ(names(scheduler_hosts(variable, std::nullopt)),
              (Names{"node1", "node2", "gpu01", "gpu02", "gpu03", "login"}));
    variable.value = "r[1-2]n[01-02]";
    EXPECT_EQ(names(scheduler_hosts(variable, std::nullopt)),
              (Names{"r1n01", "r1n02", "r2n01", "r2n02"}));
}

TEST(SchedulerHosts, BadVariablesAreUsageErrorsNamingThem) {
    SchedulerVariable variable{SchedulerKind::slurm, SchedulerFormat::host_list,
                               "SLURM_JOB_NODELIST", " "};
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST is set but empty: no hosts (unset it, or give --host or "
              "--hostfile)");
    variable.value = "node[2-1]";
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST: invalid host range 'node[2-1]': reversed range '2-1'");
    variable.value = "a,a";
    EXPECT_EQ(usage_message([&] { scheduler_hosts(variable, std::nullopt); }),
              "SLURM_JOB_NODELIST: duplicate host 'a'");
    SchedulerVariable pbs{SchedulerKind::pbs, SchedulerFormat::slot_lines, "PBS_NODEFILE", ""};
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
    std::vector<Host> hosts = parse_slot_lines(
        "n2.cluster\nn2.cluster\n\nn1.cluster \nn2.cluster\nn1.cluster\n", "PBS_NODEFILE", "f");
    EXPECT_EQ(names(hosts), (Names{"n2.cluster", "n1.cluster"}));
    EXPECT_EQ(hosts[0].slots, 3);
    EXPECT_EQ(hosts[1].slots, 2);
}

TEST(PbsNodefile, BadFilesAreUsageErrorsWithFileAndLine) {
    EXPECT_EQ(usage_message([] { parse_slot_lines("\n \n", "PBS_NODEFILE", "/pbs/aux/7"); }),
              "PBS_NODEFILE /pbs/aux/7: no hosts in the node file");
    EXPECT_EQ(usage_message([] { parse_slot_lines("n1\nn;2\n", "PBS_NODEFILE", "/pbs/aux/7"); }),
              "PBS_NODEFILE /pbs/aux/7:2: invalid host 'n;2': contains ';'");
}

TEST(SchedulerVariable, LsfAndSgeComeAfterSlurmAndPbs) {
    auto lsf = find_scheduler_variable(
        {"LSB_MCPU_HOSTS=n1 4", "LSB_DJOB_HOSTFILE=/lsf/hosts", "PE_HOSTFILE=/sge/pe"});
    ASSERT_TRUE(lsf);
    EXPECT_EQ(lsf->kind, SchedulerKind::lsf);
    EXPECT_EQ(lsf->name, "LSB_DJOB_HOSTFILE");
    EXPECT_TRUE(names_node_file(*lsf));
    auto mcpu = find_scheduler_variable({"LSB_MCPU_HOSTS=n1 4", "PE_HOSTFILE=/sge/pe"});
    ASSERT_TRUE(mcpu);
    EXPECT_EQ(mcpu->format, SchedulerFormat::host_slots);
    EXPECT_FALSE(names_node_file(*mcpu));
    auto sge = find_scheduler_variable({"PE_HOSTFILE=/sge/pe"});
    ASSERT_TRUE(sge);
    EXPECT_EQ(sge->kind, SchedulerKind::sge);
    EXPECT_TRUE(names_node_file(*sge));
    auto pbs = find_scheduler_variable({"PE_HOSTFILE=/sge/pe", "PBS_NODEFILE=/pbs/nodes"});
    ASSERT_TRUE(pbs);
    EXPECT_EQ(pbs->kind, SchedulerKind::pbs);
    EXPECT_EQ(scheduler_variable_names(), "SLURM_JOB_NODELIST, SLURM_NODELIST, PBS_NODEFILE, "
                                          "LSB_DJOB_HOSTFILE, LSB_MCPU_HOSTS, PE_HOSTFILE");
}

TEST(LsfHostSlots, PairsGiveHostsInOrderWithTheirSlots) {
    // LSF lists the first execution host first; a host twice adds up.
    std::vector<Host> hosts = parse_lsf_host_slots(" gpu2 4\tgpu1 2  gpu2 1 ");
    EXPECT_EQ(names(hosts), (Names{"gpu2", "gpu1"}));
    EXPECT_EQ(hosts[0].slots, 5);
    EXPECT_EQ(hosts[1].slots, 2);
    SchedulerVariable variable{SchedulerKind::lsf, SchedulerFormat::host_slots, "LSB_MCPU_HOSTS",
                               "a 1 b 1"};
    EXPECT_EQ(names(scheduler_hosts(variable, std::nullopt)), (Names{"a", "b"}));
}

TEST(LsfHostSlots, BadValuesAreUsageErrors) {
    EXPECT_EQ(usage_message([] { parse_lsf_host_slots("n1 4 n2"); }),
              "LSB_MCPU_HOSTS: 'n2' has no slot count (expected 'host count' pairs)");
    EXPECT_EQ(usage_message([] { parse_lsf_host_slots("n1 four"); }),
              "LSB_MCPU_HOSTS: slot count 'four' is not a number from 1 to 1000000");
    EXPECT_EQ(usage_message([] { parse_lsf_host_slots("n1 0"); }),
              "LSB_MCPU_HOSTS: slot count '0' is not a number from 1 to 1000000");
    EXPECT_EQ(usage_message([] { parse_lsf_host_slots("n;1 1"); }),
              "LSB_MCPU_HOSTS: invalid host 'n;1': contains ';'");
    SchedulerVariable blank{SchedulerKind::lsf, SchedulerFormat::host_slots, "LSB_MCPU_HOSTS", " "};
    EXPECT_EQ(usage_message([&] { scheduler_hosts(blank, std::nullopt); }),
              "LSB_MCPU_HOSTS is set but empty: no hosts (unset it, or give --host or "
              "--hostfile)");
}

TEST(LsfHostfile, IsALinePerSlotLikePbs) {
    std::vector<Host> hosts = parse_slot_lines("b\nb\na\n", "LSB_DJOB_HOSTFILE", "/lsf/h");
    EXPECT_EQ(names(hosts), (Names{"b", "a"}));
    EXPECT_EQ(hosts[0].slots, 2);
    EXPECT_EQ(usage_message([] { parse_slot_lines("\n", "LSB_DJOB_HOSTFILE", "/lsf/h"); }),
              "LSB_DJOB_HOSTFILE /lsf/h: no hosts in the node file");
}

TEST(PeHostfile, TakesHostAndSlotsOfEachLine) {
    // As SGE writes it: host, slots, queue, processor range; a host in two queues adds up.
    std::vector<Host> hosts = parse_pe_hostfile("n2.example 4 all.q@n2.example UNDEFINED\n"
                                                "\n"
                                                "n1.example 2 all.q@n1.example UNDEFINED\n"
                                                "n2.example 1 gpu.q@n2.example <NULL>\n",
                                                "/sge/pe");
    EXPECT_EQ(names(hosts), (Names{"n2.example", "n1.example"}));
    EXPECT_EQ(hosts[0].slots, 5);
    EXPECT_EQ(hosts[1].slots, 2);
    SchedulerVariable variable{SchedulerKind::sge, SchedulerFormat::pe_hostfile, "PE_HOSTFILE",
                               "/sge/pe"};
    EXPECT_EQ(names(scheduler_hosts(variable, std::string("a 1 q UNDEFINED\n"))), Names{"a"});
}

TEST(PeHostfile, BadFilesAreUsageErrorsWithFileAndLine) {
    EXPECT_EQ(usage_message([] { parse_pe_hostfile("a 1 q x\nb\n", "/sge/pe"); }),
              "PE_HOSTFILE /sge/pe:2: 'b' has no slot count (expected 'host slots queue "
              "processors')");
    EXPECT_EQ(usage_message([] { parse_pe_hostfile("a -1 q x\n", "/sge/pe"); }),
              "PE_HOSTFILE /sge/pe:1: slot count '-1' is not a number from 1 to 1000000");
    EXPECT_EQ(usage_message([] { parse_pe_hostfile(" \n", "/sge/pe"); }),
              "PE_HOSTFILE /sge/pe: no hosts in the node file");
}

TEST(SchedulerNotice, SaysWhereTheHostsCameFrom) {
    SchedulerVariable slurm{SchedulerKind::slurm, SchedulerFormat::host_list, "SLURM_JOB_NODELIST",
                            "node[1-2]"};
    EXPECT_EQ(scheduler_notice(slurm, 2, 2),
              "using the 2 hosts of the Slurm allocation (SLURM_JOB_NODELIST=node[1-2])");
    SchedulerVariable pbs{SchedulerKind::pbs, SchedulerFormat::slot_lines, "PBS_NODEFILE",
                          "/pbs/aux/7"};
    EXPECT_EQ(scheduler_notice(pbs, 1, 3),
              "using 1 of the 3 hosts of the PBS job (PBS_NODEFILE=/pbs/aux/7)");
    EXPECT_EQ(scheduler_notice(pbs, 1, 1),
              "using the 1 host of the PBS job (PBS_NODEFILE=/pbs/aux/7)");
    SchedulerVariable lsf{SchedulerKind::lsf, SchedulerFormat::host_slots, "LSB_MCPU_HOSTS",
                          "a 2 b 2"};
    EXPECT_EQ(scheduler_notice(lsf, 2, 2),
              "using the 2 hosts of the LSF job (LSB_MCPU_HOSTS=a 2 b 2)");
    SchedulerVariable sge{SchedulerKind::sge, SchedulerFormat::pe_hostfile, "PE_HOSTFILE", "/p"};
    EXPECT_EQ(scheduler_notice(sge, 3, 3), "using the 3 hosts of the SGE job (PE_HOSTFILE=/p)");
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
              "--include needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)");
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
