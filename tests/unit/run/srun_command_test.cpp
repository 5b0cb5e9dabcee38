#include "files.hpp"
#include "find_local.hpp"
#include "typed_options.hpp"
#include "usage_message.hpp"

#include "colossalai/run/planner.hpp"
#include "colossalai/run/srun_command.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/quote.hpp"

#include <fmt/core.h>
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

// A task's script run by a real /bin/sh with `variables` (what Slurm sets for a task, as shell
// assignments); printf stands in for torchrun. A getent that finds every name (or, with
// `resolves` false, none) comes first on PATH: the preflight's master-address check looks no
// name up for real.
std::string run_script(const std::string& script, const std::string& variables,
                       bool resolves = true) {
    test::TempDir bin;
    bin.write("getent", resolves ? "#!/bin/sh\nexit 0\n" : "#!/bin/sh\nexit 2\n", 0755);
    std::string command = "PATH=" + util::shell_quote(bin.path().string() + ":/usr/bin:/bin") +
                          " " + variables + " /bin/sh -c " + util::shell_quote(script) +
                          " colossalai-task 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
        out.append(buffer, n);
    }
    ::pclose(pipe);
    return out;
}

// As the task on `node`.
std::string run_task(const std::vector<NodeCommand>& nodes, const std::string& node) {
    return run_script(srun_task_script(nodes), "SLURMD_NODENAME=" + util::shell_quote(node));
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
              start + "1 node-a\n" + start + "1 node-a\n" +
                  "[--nnodes=2][--node_rank=1][--master_addr=node-b]['$(id)'][a b][`x`]" + exit +
                  "0\n" + exit + "0\n");
    nodes[0].argv[0] = "false";
    nodes[1].argv[0] = "false";
    EXPECT_EQ(run_task(nodes, "node-b"),
              start + "0 node-b\n" + start + "0 node-b\n" + exit + "1\n" + exit + "1\n");
    EXPECT_NE(run_task(nodes, "node-c").find("the Slurm node 'node-c' is not one of the run's"),
              std::string::npos);
}

TEST(SrunTaskScript, AFailedPreflightCheckIsNamedAndStartsNothing) {
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.argv[0] = "echo"; // found: the command would print its words
        node.working_directory = "/";
        node.preflight.master_address = "10.0.0.1"; // numeric: no lookup
    }
    std::string start = std::string(task_start_marker) + "0 node-b\n";
    std::string exit = std::string(task_exit_marker) + "254\n";
    std::vector<NodeCommand> missing_directory = nodes;
    missing_directory[0].working_directory = "/nonexistent-dir";
    EXPECT_EQ(run_task(missing_directory, "node-b"),
              start + start + "\036colossalai-failed cwd\n" + exit + exit);
    std::vector<NodeCommand> missing_command = nodes;
    for (NodeCommand& node : missing_command) {
        node.argv[0] = "colossalai-no-such-torchrun";
    }
    EXPECT_EQ(run_task(missing_command, "node-b"),
              start + start + "\036colossalai-failed command\n" + exit + exit);
    std::vector<NodeCommand> missing_interface = nodes;
    missing_interface[0].preflight.interfaces = {"lo", "cai-nosuch0"};
    EXPECT_EQ(run_task(missing_interface, "node-b"),
              start + start + "\036colossalai-failed interface cai-nosuch0\n" + exit + exit);
    // Passing checks: the command runs.
    EXPECT_NE(run_task(nodes, "node-b").find("--node_rank=0 --master_addr=node-b x.py\n"),
              std::string::npos);
}

// The allocated form, with what Slurm sets for a task.
std::string run_allocated_task(const std::vector<NodeCommand>& nodes, const std::string& variables,
                               bool resolves = true) {
    return run_script(srun_task_script(nodes, true), variables, resolves);
}

TEST(SrunTaskScript, AllocatedTakesTheRankAndMasterFromSlurm) {
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.host = fmt::format("(node {})", node.rank);
        node.argv[3] = "--master_addr=(node 0)";
        node.argv[0] = "printf";
        node.argv.insert(node.argv.begin() + 1, "[%s]");
    }
    std::string start = std::string(task_start_marker);
    std::string exit = std::string(task_exit_marker);
    EXPECT_EQ(run_allocated_task(nodes, "SLURM_NODEID=1 SLURMD_NODENAME=gpu-b7 "
                                        "SLURM_STEP_NODELIST='gpu-a[001-004,010],gpu-b7'"),
              start + "1 gpu-b7\n" + start + "1 gpu-b7\n" +
                  "[--nnodes=2][--node_rank=1][--master_addr=gpu-a001][x.py]" + exit + "0\n" +
                  exit + "0\n");
    EXPECT_NE(run_allocated_task(nodes, "SLURM_STEP_NODELIST='r[1-2]n[01-04]' SLURM_NODEID=0")
                  .find("[--node_rank=0][--master_addr=r1n01]"),
              std::string::npos);
    EXPECT_NE(run_allocated_task(nodes, "SLURMD_NODENAME=x")
                  .find("colossalai: no node id from Slurm (SLURM_NODEID='')"),
              std::string::npos);
}

// srun allocated the nodes: the master is node 0 as Slurm names it, and a failed lookup names
// that node, not the plan's placeholder "(node 0)".
TEST(SrunTaskScript, AllocatedMasterThatDoesNotResolveIsNamedAsSlurmNamesIt) {
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.host = fmt::format("(node {})", node.rank);
        node.argv[3] = "--master_addr=(node 0)";
        node.preflight.master_address = "(node 0)";
        node.argv[0] = "echo";
        node.working_directory = "/";
    }
    std::string start = std::string(task_start_marker) + "1 gpu-b7\n";
    std::string exit = std::string(task_exit_marker) + "254\n";
    EXPECT_EQ(run_allocated_task(nodes,
                                 "SLURM_NODEID=1 SLURMD_NODENAME=gpu-b7 "
                                 "SLURM_STEP_NODELIST='gpu-a[001-004],gpu-b7'",
                                 false),
              start + start + "\036colossalai-failed master gpu-a001\n" + exit + exit);
}

TEST(ParseTaskStart, RankAndNodeName) {
    auto start = parse_task_start(std::string(task_start_marker) + "3 node7");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->rank, 3);
    EXPECT_EQ(start->node, "node7");
    start = parse_task_start(std::string(task_start_marker) + "0 ");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->node, "");
    start = parse_task_start(std::string(task_start_marker) + "12");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->rank, 12);
    for (std::string text : {std::string(task_start_marker), std::string(task_start_marker) + "x 1",
                             std::string("colossalai-task-start 1 n")}) {
        EXPECT_FALSE(parse_task_start(text)) << text;
    }
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

TEST(SrunNotice, EveryLineOfSrunsReadsAsSrunsOnALineOfItsOwn) {
    EXPECT_EQ(srun_notice("srun: error: node2: task 1: Exited with exit code 3"),
              "colossalai: srun: error: node2: task 1: Exited with exit code 3\n");
    EXPECT_EQ(srun_notice("srun: Job step aborted: Waiting up to 32 seconds for job step to "
                          "finish.\r"),
              "colossalai: srun: Job step aborted: Waiting up to 32 seconds for job step to "
              "finish.\n");
    EXPECT_EQ(srun_notice("task 3: not started"), "colossalai: srun: task 3: not started\n");
    // Text from a node cannot move the cursor or end the line early; UTF-8 stays readable.
    EXPECT_EQ(srun_notice("srun: \x1b[2Kn\u00f6de\rnode1: forged"),
              "colossalai: srun: \\x1b[2Kn\u00f6de\\x0dnode1: forged\n");
    EXPECT_EQ(srun_notice(""), "colossalai: srun: \n");
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
    options.srun_args = parse_srun_args("-p gpu");
    Plan plan = make_plan(options, slurm_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_FALSE(plan.nodes[0].local); // even a host that is this machine
    EXPECT_EQ(plan.srun_command, build_srun_command(plan.nodes, {"-p", "gpu"}));
}

// Outside an allocation with --num_nodes and no hosts: srun allocates any N nodes, which the
// tasks name; the plan's hosts are placeholders and the master address is the step's first node.
TEST(PlanSrun, NumNodesWithoutHostsLetsSrunAllocate) {
    Options options = slurm_options();
    options.num_nodes = 2;
    Plan plan = make_plan(options, slurm_context());
    ASSERT_EQ(plan.nodes.size(), 2u);
    EXPECT_TRUE(plan.srun_allocates);
    EXPECT_EQ(plan.nodes[1].host, "(node 1)");
    EXPECT_FALSE(plan.nodes[0].local);
    EXPECT_EQ(plan.notices,
              Words{"srun allocates 2 nodes; each is named by its task when it starts"});
    EXPECT_EQ(plan.srun_command, build_srun_command(plan.nodes, {}, true));
    EXPECT_EQ(Words(plan.srun_command.begin(), plan.srun_command.begin() + 6),
              (Words{"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1",
                     "--kill-on-bad-exit=0", "--label"}));
}

TEST(PlanSrun, RefusesWhatSrunCannotDo) {
    Options options = slurm_options();
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--launcher slurm needs the nodes: --num_nodes N (srun allocates them), --host or "
              "--hostfile, or run it inside a Slurm allocation (salloc, sbatch)");
    options.num_nodes = 100001;
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--num_nodes '100001': more than 100000 nodes");
    options.num_nodes = 2;
    options.exclude = test::hosts("node1");
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--exclude needs --hostfile (or the hosts of a Slurm or PBS job)");
    options.exclude.reset();
    options.num_nodes.reset();
    options.host = test::hosts("me@node1");
    EXPECT_EQ(test::usage_message([&] { make_plan(options, slurm_context()); }),
              "--launcher slurm: host 'me@node1' names a user; Slurm runs every task as the user "
              "who starts srun");
    // Checked with the other options, before any plan (the cli validates once).
    options.host = test::hosts("node1");
    options.ssh_port = 22;
    EXPECT_EQ(test::usage_message([&] { validate_options(options); }),
              "--ssh-port is for --launcher ssh (srun starts the nodes' jobs)");
    Options ssh = slurm_options();
    ssh.launcher = Launcher::ssh;
    ssh.srun_args = parse_srun_args("-p gpu");
    EXPECT_EQ(test::usage_message([&] { validate_options(ssh); }),
              "--srun-args needs --launcher slurm");
}

} // namespace
} // namespace colossalai::run
