#include "../usage_message.hpp"

#include "colossalai/run/planner.hpp"
#include "colossalai/run/srun_command.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace colossalai::run {
namespace {

using Words = std::vector<std::string>;

std::vector<NodeCommand> two_nodes(const Words& tail = {"train.py", "it's", "a b"}) {
    std::vector<NodeCommand> nodes;
    for (int rank = 0; rank < 2; ++rank) {
        NodeCommand node;
        node.host = rank == 0 ? "node-b" : "node-a";
        node.rank = rank;
        node.argv = {"torchrun", "--nnodes=2", "--node_rank=" + std::to_string(rank),
                     "--master_addr=node-b"};
        node.argv.insert(node.argv.end(), tail.begin(), tail.end());
        nodes.push_back(node);
    }
    return nodes;
}

TEST(ParseSrunArgs, SplitsLikeAShellWithoutExpanding) {
    EXPECT_EQ(parse_srun_args("  --partition gpu\t--time=1:00:00 "),
              (Words{"--partition", "gpu", "--time=1:00:00"}));
    EXPECT_EQ(parse_srun_args(R"(--job-name 'a b' --comment "x \"y\" $HOME" -A\ z)"),
              (Words{"--job-name", "a b", "--comment", "x \"y\" $HOME", "-A z"}));
    EXPECT_EQ(parse_srun_args(""), Words{});
}

TEST(ParseSrunArgs, RefusesUnterminatedQuotesAndTheLaunchersOwnOptions) {
    EXPECT_EQ(test::usage_message([] { parse_srun_args("--comment 'x"); }),
              "--srun-args: unterminated ' quote");
    EXPECT_EQ(test::usage_message([] { parse_srun_args("--comment \"x"); }),
              "--srun-args: unterminated \" quote");
    for (const char* word : {"--nodes=3", "-N", "--ntasks", "-n4", "--nodelist=x", "-w", "--label",
                             "-u", "--kill-on-bad-exit", "--output=f", "--pty"}) {
        EXPECT_EQ(test::usage_message([&] { parse_srun_args(word); }),
                  std::string("--srun-args: '") + word + "' is set by the launcher itself");
    }
}

TEST(BuildSrunCommand, OneStepOfOneTaskPerNodeInPlanOrder) {
    Words argv = build_srun_command(two_nodes(), {"--partition", "gpu"});
    ASSERT_EQ(argv.size(), 13u);
    EXPECT_EQ(
        Words(argv.begin(), argv.begin() + 9),
        (Words{"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--nodelist=node-b,node-a",
               "--kill-on-bad-exit=0", "--label", "--partition", "gpu"}));
    EXPECT_EQ(argv[9], "/bin/sh");
    EXPECT_EQ(argv[10], "-c");
    EXPECT_EQ(argv[11], srun_task_script(two_nodes()));
    EXPECT_EQ(argv[12], "colossalai-task");
}

TEST(SrunTaskScript, RefusesCommandsThatDifferInMoreThanTheRank) {
    std::vector<NodeCommand> nodes = two_nodes();
    nodes[1].argv.back() = "other";
    EXPECT_THROW(srun_task_script(nodes), Error);
}

// The script, run by a real /bin/sh as the task on `node` (printf stands in for torchrun).
std::string run_task(const std::vector<NodeCommand>& nodes, const std::string& node) {
    std::string command = "SLURMD_NODENAME=" + util::shell_quote(node) + " /bin/sh -c " +
                          util::shell_quote(srun_task_script(nodes)) + " colossalai-task 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
        out.append(buffer, n);
    }
    ::pclose(pipe);
    return out;
}

TEST(SrunTaskScript, RunsItsNodesCommandBetweenTheMarkers) {
    std::vector<NodeCommand> nodes = two_nodes({"'$(id)'", "a b", "`x`"});
    for (NodeCommand& node : nodes) {
        node.argv.insert(node.argv.begin(), {"printf", "[%s]"});
        node.argv.erase(node.argv.begin() + 2); // torchrun
    }
    std::string start = std::string(task_start_marker);
    std::string exit = std::string(task_exit_marker);
    EXPECT_EQ(run_task(nodes, "node-a"),
              start + "1\n" + start + "1\n" +
                  "[--nnodes=2][--node_rank=1][--master_addr=node-b]['$(id)'][a b][`x`]" + exit +
                  "0\n" + exit + "0\n");
    nodes[0].argv[0] = "false";
    nodes[1].argv[0] = "false";
    EXPECT_EQ(run_task(nodes, "node-b"),
              start + "0\n" + start + "0\n" + exit + "1\n" + exit + "1\n");
    EXPECT_NE(run_task(nodes, "node-c").find("the Slurm node 'node-c' is not one of the run's"),
              std::string::npos);
}

TEST(ParseLabelledLine, TakesSrunsTaskLabel) {
    auto line = parse_labelled_line("0: hello: world");
    ASSERT_TRUE(line);
    EXPECT_EQ(line->task, 0);
    EXPECT_EQ(line->text, "hello: world");
    line = parse_labelled_line(" 12: ");
    ASSERT_TRUE(line);
    EXPECT_EQ(line->task, 12);
    EXPECT_EQ(line->text, "");
    for (const char* text :
         {"srun: error: node2: task 1: Exited", "", "   ", "3:x", "-1: x", "1234567890: x"}) {
        EXPECT_FALSE(parse_labelled_line(text)) << text;
    }
}

TEST(ParseMarker, ReadsTheNumberAfterTheMarker) {
    std::string exit = std::string(task_exit_marker);
    EXPECT_EQ(parse_marker(exit + "3", task_exit_marker), 3);
    EXPECT_EQ(parse_marker(exit + "143", task_exit_marker), 143);
    EXPECT_FALSE(parse_marker(exit, task_exit_marker));
    EXPECT_FALSE(parse_marker(exit + "3 ", task_exit_marker));
    EXPECT_FALSE(parse_marker("colossalai-task-exit 3", task_exit_marker));
    EXPECT_FALSE(parse_marker(exit + "3", task_start_marker));
}

Options slurm_options() {
    Options options;
    options.launcher = Launcher::slurm;
    options.nproc_per_node = "1";
    options.script = "train.py";
    return options;
}

Context slurm_context() {
    Context context;
    context.environment = {"PATH=/bin"};
    context.working_directory = "/work/job";
    context.is_local = [](std::string_view) { return true; };
    return context;
}

TEST(PlanSrun, EveryNodeIsATaskOfOneSrun) {
    Options options = slurm_options();
    options.host = "node[1-2]";
    options.srun_args = "-p gpu";
    Plan plan = make_plan(options, slurm_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_FALSE(plan.nodes[0].local); // even a host that is this machine
    EXPECT_EQ(plan.srun_command, build_srun_command(plan.nodes, {"-p", "gpu"}));
}

TEST(PlanSrun, RefusesWhatSrunCannotDo) {
    Options options = slurm_options();
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--launcher slurm needs the nodes: --host or --hostfile, or run it inside a Slurm "
              "allocation (salloc, sbatch)");
    options.host = "me@node1";
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--launcher slurm: host 'me@node1' names a user; Slurm runs every task as the user "
              "who starts srun");
    // Checked with the other options, before any plan (the cli validates once).
    options.host = "node1";
    options.ssh_port = 22;
    EXPECT_EQ(test::usage_message([&] { validate_options(options); }),
              "--ssh-port is for --launcher ssh (srun starts the nodes' jobs)");
    Options ssh = slurm_options();
    ssh.launcher = Launcher::ssh;
    ssh.srun_args = "-p gpu";
    EXPECT_EQ(test::usage_message([&] { validate_options(ssh); }),
              "--srun-args needs --launcher slurm");
}

} // namespace
} // namespace colossalai::run
