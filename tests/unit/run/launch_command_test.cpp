#include "colossalai/run/launch_command.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using util::Version;

TEST(LauncherForm, FollowsThePyTorchVersion) {
    EXPECT_EQ(launcher_form(std::nullopt), LauncherForm::torchrun);
    EXPECT_EQ(launcher_form(Version{1, 7, 1}), LauncherForm::distributed_launch);
    EXPECT_EQ(launcher_form(Version{1, 8, std::nullopt}), LauncherForm::distributed_launch);
    EXPECT_EQ(launcher_form(Version{1, 8, 99}), LauncherForm::distributed_launch);
    EXPECT_EQ(launcher_form(Version{0, 4, 1}), LauncherForm::distributed_launch);
    EXPECT_EQ(launcher_form(Version{1, 9, 0}), LauncherForm::distributed_run);
    EXPECT_EQ(launcher_form(Version{1, 9, 1}), LauncherForm::distributed_run);
    EXPECT_EQ(launcher_form(Version{1, 10, 0}), LauncherForm::torchrun);
    EXPECT_EQ(launcher_form(Version{1, 13, 1}), LauncherForm::torchrun);
    EXPECT_EQ(launcher_form(Version{2, 0, 0}), LauncherForm::torchrun);
    EXPECT_EQ(launcher_form(Version{3, 1, std::nullopt}), LauncherForm::torchrun);
}

LaunchSpec spec(LauncherForm form) {
    LaunchSpec spec;
    spec.form = form;
    spec.python = "/venv/bin/python3";
    spec.nproc_per_node = 8;
    spec.nnodes = 3;
    spec.node_rank = 2;
    spec.master_addr = MasterAddress{"node0"};
    spec.master_port = Port{29500};
    spec.script = "train.py";
    spec.script_args = {"--lr", "0.1", "a b", "--master_port", "1"};
    return spec;
}

using Words = std::vector<std::string>;

TEST(BuildLaunchCommand, TorchBelow19UsesDistributedLaunch) {
    EXPECT_EQ(build_launch_command(spec(LauncherForm::distributed_launch)),
              (Words{"/venv/bin/python3", "-m", "torch.distributed.launch", "--nproc_per_node=8",
                     "--master_addr=node0", "--master_port=29500", "--nnodes=3", "--node_rank=2",
                     "train.py", "--lr", "0.1", "a b", "--master_port", "1"}));
}

TEST(BuildLaunchCommand, Torch19UsesDistributedRun) {
    EXPECT_EQ(build_launch_command(spec(LauncherForm::distributed_run)),
              (Words{"/venv/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=8",
                     "--nnodes=3", "--node_rank=2", "--master_addr=node0", "--master_port=29500",
                     "train.py", "--lr", "0.1", "a b", "--master_port", "1"}));
}

TEST(BuildLaunchCommand, Torch110AndLaterUseTorchrun) {
    EXPECT_EQ(build_launch_command(spec(LauncherForm::torchrun)),
              (Words{"torchrun", "--nproc_per_node=8", "--nnodes=3", "--node_rank=2",
                     "--master_addr=node0", "--master_port=29500", "train.py", "--lr", "0.1", "a b",
                     "--master_port", "1"}));
}

// The planner keeps where each node's own words are, so that nothing searches the argv later
// (the Slurm transport's task script puts Slurm's values there).
TEST(LaunchCommand, SaysWhereTheNodeRankAndTheMasterAddressAre) {
    for (LauncherForm form : {LauncherForm::distributed_launch, LauncherForm::distributed_run,
                              LauncherForm::torchrun}) {
        LaunchCommand command = launch_command(spec(form));
        EXPECT_EQ(command.argv, build_launch_command(spec(form)));
        EXPECT_EQ(command.argv.at(command.node_rank_word), "--node_rank=2");
        EXPECT_EQ(command.argv.at(command.master_addr_word), "--master_addr=node0");
    }
}

// The planner copies one node's command and replaces this word only: the rest must not depend
// on the rank.
TEST(LaunchCommand, DiffersBetweenRanksOnlyInTheNodeRankWord) {
    for (LauncherForm form : {LauncherForm::distributed_launch, LauncherForm::distributed_run,
                              LauncherForm::torchrun}) {
        LaunchSpec other = spec(form);
        other.node_rank = 99999;
        LaunchCommand command = launch_command(spec(form));
        command.argv.at(command.node_rank_word) = node_rank_option(other.node_rank);
        EXPECT_EQ(command.argv, launch_command(other).argv);
        EXPECT_EQ(node_rank_option(7), "--node_rank=7");
    }
}

TEST(BuildLaunchCommand, ExtraArgsComeBeforeTheScript) {
    LaunchSpec with_extra = spec(LauncherForm::torchrun);
    with_extra.extra = {{"rdzv_conf", "timeout=900"}, {"standalone", std::nullopt}};
    with_extra.script_args = {};
    EXPECT_EQ(build_launch_command(with_extra),
              (Words{"torchrun", "--nproc_per_node=8", "--nnodes=3", "--node_rank=2",
                     "--master_addr=node0", "--master_port=29500", "--rdzv_conf=timeout=900",
                     "--standalone", "train.py"}));
}

TEST(BuildLaunchCommand, ModuleComesAfterMinusM) {
    LaunchSpec module = spec(LauncherForm::torchrun);
    module.script.reset();
    module.module = "pkg.train";
    module.script_args = {"-x"};
    module.extra = {{"tee", "1"}};
    EXPECT_EQ(
        build_launch_command(module),
        (Words{"torchrun", "--nproc_per_node=8", "--nnodes=3", "--node_rank=2",
               "--master_addr=node0", "--master_port=29500", "--tee=1", "-m", "pkg.train", "-x"}));
}

} // namespace
} // namespace colossalai::run
