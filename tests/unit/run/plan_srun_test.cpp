// The plan of a Slurm launch: its launch intent carries --srun-args' words
// (tests/unit/slurm/srun_args_test.cpp) and whether srun allocates; the Slurm transport builds
// srun's command from them (tests/unit/slurm/srun_command_test.cpp).

#include "find_local.hpp"
#include "plan_of.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/planner.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

Options slurm_options() {
    Options options;
    options.engine = test::engine_named("slurm");
    options.nproc_per_node = test::nproc("1");
    options.script = "train.py";
    return options;
}

Context slurm_context() {
    Context context;
    context.environment = {"PATH=/bin"};
    context.working_directory = "/work/job";
    context.find_local = test::find_local_by([](std::string_view) { return true; });
    return context;
}

TEST(PlanSrun, EveryNodeIsATaskOfOneSrun) {
    Options options = slurm_options();
    options.host = test::hosts("node[1-2]");
    test::given<SrunLaunch>(options).srun_args = Words{"-p", "gpu"};
    Plan plan = test::plan_of(options, slurm_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_FALSE(plan.nodes[0].local); // even a host that is this machine
    EXPECT_EQ(plan.launch, LaunchIntent(SrunLaunch{{"-p", "gpu"}, false}));
    // srun's tasks start from the launcher's whole environment: nothing is withheld.
    EXPECT_TRUE(plan.nodes[1].withheld_environment.empty());
}

// Outside an allocation with --num_nodes and no hosts: srun allocates any N nodes, which the
// tasks name; the plan's hosts are placeholders and the master address is the step's first node.
TEST(PlanSrun, NumNodesWithoutHostsLetsSrunAllocate) {
    Options options = slurm_options();
    options.num_nodes = 2;
    Plan plan = test::plan_of(options, slurm_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_EQ(plan.launch, LaunchIntent(SrunLaunch{{}, true}));
    EXPECT_EQ(plan.nodes[1].host, "(node 1)");
    EXPECT_FALSE(plan.nodes[0].local);
    EXPECT_EQ(plan.notices,
              Words{"srun allocates 2 nodes; each is named by its task when it starts"});
}

TEST(PlanSrun, RefusesWhatSrunCannotDo) {
    Options options = slurm_options();
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, slurm_context()); }),
              "--launcher slurm needs the nodes: --num_nodes N (srun allocates them), --host or "
              "--hostfile, or run it inside a Slurm allocation (salloc, sbatch)");
    options.num_nodes = 100001;
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, slurm_context()); }),
              "--num_nodes '100001': more than 100000 nodes");
    options.num_nodes = 2;
    options.exclude = test::hosts("node1");
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, slurm_context()); }),
              "--exclude needs --hostfile (or the hosts of a batch job: Slurm, PBS, LSF, SGE)");
    options.exclude.reset();
    options.num_nodes.reset();
    options.host = test::hosts("me@node1");
    EXPECT_EQ(test::usage_message([&] { test::plan_of(options, slurm_context()); }),
              "--launcher slurm: host 'me@node1' names a user; Slurm runs every task as the user "
              "who starts srun");
    // The options of another engine are refused by the engines' rows, before any plan
    // (EngineValidation in tests/unit/engines).
}

} // namespace
} // namespace colossalai::run
