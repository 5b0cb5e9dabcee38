// The srun command and each task's script, run by a real /bin/sh (and perl, for the relay).

#include "../task_script_run.hpp"
#include "fake_gpus.hpp"
#include "files.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/job/preflight.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/slurm/srun_command.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/signal_name.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace colossalai::slurm {
namespace {

using job::NodeCommand;
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
        node.words = job::NodeWords{2, 3};
        nodes.push_back(node);
    }
    return nodes;
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

TEST(BuildSrunCommand, WithoutANodeListWhenSrunAllocates) {
    Words argv = build_srun_command(two_nodes(), {}, true);
    EXPECT_EQ(Words(argv.begin(), argv.begin() + 6),
              (Words{"srun", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1",
                     "--kill-on-bad-exit=0", "--label"}));
}

// The Slurm transport builds srun's command from the plan and its launch intent.
TEST(BuildSrunCommand, FromThePlansLaunchIntent) {
    run::Plan plan;
    plan.nodes = two_nodes();
    plan.launch = run::SrunLaunch{{"-p", "gpu"}, false};
    EXPECT_EQ(srun_command(plan, std::get<run::SrunLaunch>(plan.launch)),
              build_srun_command(plan.nodes, {"-p", "gpu"}, false, std::nullopt, TaskStart::on_go));
    EXPECT_EQ(srun_command(plan, run::SrunLaunch{{}, true}),
              build_srun_command(plan.nodes, {}, true, std::nullopt, TaskStart::on_go));
}

// A launch's task waits at the barrier: its ready marker once its checks passed, its job at the
// go (SIGUSR1); stopped before it (SIGTERM, as scancel delivers the launcher's stop), it ends
// without its job and without an exit marker.
TEST(SrunTaskScript, OnGoTheJobWaitsForTheGo) {
    std::vector<NodeCommand> nodes = two_nodes({"a b"});
    for (NodeCommand& node : nodes) {
        node.argv.insert(node.argv.begin(), {"printf", "[%s]"});
        node.argv.erase(node.argv.begin() + 2); // torchrun
        node.words = job::NodeWords{3, 4};
    }
    std::string script = srun_task_script(nodes, false, std::nullopt, TaskStart::on_go);
    std::string variables = "SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURMD_NODENAME=node-a";
    std::string start = test::said(1, step::task_start_marker, "7.0 node-a");
    std::string exit = test::said(1, step::task_exit_marker, "0");
    EXPECT_EQ(
        test::run_task_script(script, variables, true, "/usr/bin:/bin", "; echo \"[$?]\"", "USR1"),
        "[0]\n" + start + start + test::said(1, step::task_ready_marker, "") +
            "[--nnodes=2][--node_rank=1][--master_addr=node-b][a b]" + exit + exit);
    EXPECT_EQ(
        test::run_task_script(script, variables, true, "/usr/bin:/bin", "; echo \"[$?]\"", "TERM"),
        "[0]\n" + start + start + test::said(1, step::task_ready_marker, ""));
}

TEST(SrunTaskScript, RefusesCommandsThatDifferInMoreThanTheRank) {
    std::vector<NodeCommand> nodes = two_nodes();
    nodes[1].argv.back() = "other";
    EXPECT_THROW(srun_task_script(nodes), Error);
    nodes = two_nodes();
    nodes[1].words->node_rank = 1; // the rank elsewhere: not node 0's command with another rank
    EXPECT_THROW(srun_task_script(nodes), Error);
}

// The master address is the step's first node only when the user did not give it.
TEST(SrunTaskScript, AllocatedKeepsAMasterAddressTheUserGave) {
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.argv[3] = "--master_addr=10.0.0.7";
        node.words->implicit_master.reset();
    }
    std::string script = srun_task_script(nodes, true);
    EXPECT_NE(script.find(" --master_addr=10.0.0.7 "), std::string::npos) << script;
    EXPECT_EQ(script.find("\"--master_addr=$m\""), std::string::npos) << script;
    nodes = two_nodes({"x.py"});
    EXPECT_NE(srun_task_script(nodes, true).find(" \"--master_addr=$m\" "), std::string::npos);
}

using test::said;

std::string run_script(const std::string& script, const std::string& variables,
                       bool resolves = true, const std::string& path = "/usr/bin:/bin") {
    return test::run_task_script(script, variables, resolves, path);
}

// As the task on `node`, of step 7.0.
std::string run_task(const std::vector<NodeCommand>& nodes, const std::string& node,
                     const std::string& path = "/usr/bin:/bin") {
    return run_script(srun_task_script(nodes),
                      "SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURMD_NODENAME=" + util::shell_quote(node),
                      true, path);
}

TEST(SrunTaskScript, RunsItsNodesCommandBetweenTheMarkers) {
    std::vector<NodeCommand> nodes = two_nodes({"'$(id)'", "a b", "`x`"});
    for (NodeCommand& node : nodes) {
        node.argv.insert(node.argv.begin(), {"printf", "[%s]"});
        node.argv.erase(node.argv.begin() + 2); // torchrun
        node.words = job::NodeWords{3, 4};
    }
    std::string start = said(1, step::task_start_marker, "7.0 node-a");
    std::string exit = said(1, step::task_exit_marker, "0");
    EXPECT_EQ(run_task(nodes, "node-a"),
              start + start +
                  "[--nnodes=2][--node_rank=1][--master_addr=node-b]['$(id)'][a b][`x`]" + exit +
                  exit);
    nodes[0].argv[0] = "false";
    nodes[1].argv[0] = "false";
    start = said(0, step::task_start_marker, "7.0 node-b");
    exit = said(0, step::task_exit_marker, "1");
    EXPECT_EQ(run_task(nodes, "node-b"), start + start + exit + exit);
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
    std::string start = said(0, step::task_start_marker, "7.0 node-b");
    std::string exit = said(0, step::task_exit_marker, "254");
    auto failed = [](const std::string& what) { return said(0, job::failed_check_marker, what); };
    std::vector<NodeCommand> missing_directory = nodes;
    missing_directory[0].working_directory = "/nonexistent-dir";
    EXPECT_EQ(run_task(missing_directory, "node-b"), start + start + failed("cwd") + exit + exit);
    std::vector<NodeCommand> missing_command = nodes;
    for (NodeCommand& node : missing_command) {
        node.argv[0] = "colossalai-no-such-torchrun";
    }
    EXPECT_EQ(run_task(missing_command, "node-b"), start + start + failed("command") + exit + exit);
    std::vector<NodeCommand> missing_interface = nodes;
    missing_interface[0].preflight.interfaces = {"lo", "cai-nosuch0"};
    EXPECT_EQ(run_task(missing_interface, "node-b"),
              start + start + failed("interface cai-nosuch0") + exit + exit);
    // Fewer GPUs than processes (the fake nvidia-smi, tests/fixtures/fake_nvidia_smi.sh, on the
    // task's PATH): every task's node counts its own.
    test::TempDir bin("colossalai-gpus");
    test::install_fake_nvidia_smi(bin.path(), 1);
    std::vector<NodeCommand> few_gpus = nodes;
    for (NodeCommand& node : few_gpus) {
        node.preflight.gpus = job::GpuPerProcess{2};
    }
    const std::string gpu_path = bin.path().string() + ":/usr/bin:/bin";
    EXPECT_EQ(run_task(few_gpus, "node-b", gpu_path),
              start + start + failed("gpus 1 smi") + exit + exit);
    test::set_fake_gpus(bin.path(), "all", 2);
    EXPECT_NE(
        run_task(few_gpus, "node-b", gpu_path).find("--node_rank=0 --master_addr=node-b x.py\n"),
        std::string::npos);
    // The script, from the working directory (/): missing on the node, or none to check (-m).
    std::vector<NodeCommand> missing_script = nodes;
    for (NodeCommand& node : missing_script) {
        node.preflight.script = "colossalai-no-such-script.py";
    }
    EXPECT_EQ(run_task(missing_script, "node-b"), start + start + failed("script") + exit + exit);
    missing_script[0].preflight.script = std::nullopt;
    EXPECT_NE(run_task(missing_script, "node-b").find("--node_rank=0 --master_addr=node-b x.py\n"),
              std::string::npos);
    // Without perl for the relay: its own check, after the others.
    EXPECT_EQ(run_task(nodes, "node-b", "/nonexistent"),
              start + start + failed("helper perl") + exit + exit);
    // Passing checks: the command runs.
    EXPECT_NE(run_task(nodes, "node-b").find("--node_rank=0 --master_addr=node-b x.py\n"),
              std::string::npos);
}

// Issue #40: a task whose torchrun runs on a known-broken pair (a venv of Python 3.11 with PyTorch
// 1.13) says so once its checks pass, and runs its command all the same.
TEST(SrunTaskScript, ABrokenPairIsANoticeAndTheCommandRuns) {
    test::TempDir dir("colossalai-pair");
    // Its python is /bin/sh, so that torchrun (a script of no line but its `#!`) runs and ends.
    dir.write("venv/pyvenv.cfg", "version = 3.11.2\n");
    std::filesystem::create_directories(dir.path() / "venv/bin");
    std::filesystem::create_symlink("/bin/sh", dir.path() / "venv/bin/python");
    dir.write("venv/lib/python3.11/site-packages/torch/version.py", "__version__ = '1.13.1'\n");
    dir.write("venv/bin/torchrun", "#!" + (dir.path() / "venv/bin/python").string() + "\n", 0755);
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.argv[0] = "echo";
        node.working_directory = "/";
        node.preflight.master_address = "10.0.0.1";
    }
    std::string notice = said(0, job::notice_marker, "pair 1.13 3.11");
    EXPECT_EQ(run_task(nodes, "node-b").find(notice), std::string::npos); // not asked
    for (NodeCommand& node : nodes) {
        node.argv[0] = (dir.path() / "venv/bin/torchrun").string();
        node.preflight.torch_pair =
            job::TorchPairCheck{job::TorchInterpreter::shebang, "torchrun", run::broken_pair()};
    }
    std::string out = run_task(nodes, "node-b");
    EXPECT_NE(out.find(notice), std::string::npos) << out;
    EXPECT_NE(out.find(said(0, step::task_exit_marker, "0")), std::string::npos) << out;
}

// Issue #24: Slurm delivers a stop (scancel --signal) to every process of the step. The job's
// handler runs; the wrapper and the relay outlive the signal and report the job's status.
TEST(SrunTaskScript, TheJobHandlesAStopSignalAndItsStatusIsReported) {
    std::vector<NodeCommand> nodes = two_nodes({"x.py"});
    for (NodeCommand& node : nodes) {
        node.argv[0] = "sh";
        node.argv.insert(node.argv.begin() + 1,
                         {"-c", "trap 'echo checkpoint; exit 0' TERM; kill -TERM 0; sleep 5"});
        node.words = job::NodeWords{4, 5};
        node.working_directory = "/";
        node.preflight.master_address = "10.0.0.1";
    }
    // In a session of its own: `kill 0` reaches the wrapper, the relay and the job.
    std::string out = run_script(srun_task_script(nodes),
                                 "SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURMD_NODENAME=node-a setsid");
    std::string exit = said(1, step::task_exit_marker, "0");
    EXPECT_NE(out.find("checkpoint\n" + exit + exit), std::string::npos) << out;
}

// The wrapper traps exactly the signals that Slurm delivers to a step, as the policy lists them
// (and the relay ignores: Relay.IgnoresWhatSlurmDeliversToTheStep).
TEST(SrunTaskScript, TrapsWhatSlurmDeliversToTheStep) {
    const std::string line = "\ntrap : INT TERM HUP QUIT USR1 USR2 ALRM\n";
    EXPECT_EQ(line, "\ntrap : " +
                        exec::signal_policy::short_names(
                            exec::signal_policy::delivered_to_slurm_steps, " ") +
                        "\n");
    for (bool allocated : {false, true}) {
        std::string script = srun_task_script(two_nodes(), allocated);
        EXPECT_NE(script.find(line), std::string::npos) << script;
    }
}

// Each of those signals, sent to the whole task, reaches the job's handler; the wrapper and the
// relay outlive it and report the job's status.
TEST(SrunTaskScript, EverySignalOfTheStepReachesTheJobAndItsStatusIsReported) {
    for (int signo : exec::signal_policy::delivered_to_slurm_steps) {
        std::string signal(util::short_signal_name(signo).value());
        SCOPED_TRACE(signal);
        std::vector<NodeCommand> nodes = two_nodes({"x.py"});
        for (NodeCommand& node : nodes) {
            node.argv[0] = "sh";
            node.argv.insert(node.argv.begin() + 1,
                             {"-c", "trap 'echo handled; exit 3' " + signal + "; kill -" + signal +
                                        " 0; sleep 5"});
            node.words = job::NodeWords{4, 5};
            node.working_directory = "/";
            node.preflight.master_address = "10.0.0.1";
        }
        std::string out =
            run_script(srun_task_script(nodes),
                       "SLURM_JOB_ID=7 SLURM_STEP_ID=0 SLURMD_NODENAME=node-a setsid");
        std::string exit = said(1, step::task_exit_marker, "3");
        EXPECT_NE(out.find("handled\n" + exit + exit), std::string::npos) << out;
    }
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
        node.words = job::NodeWords{3, 4};
    }
    std::string start = said(1, step::task_start_marker, ". gpu-b7");
    std::string exit = said(1, step::task_exit_marker, "0");
    EXPECT_EQ(run_allocated_task(nodes, "SLURM_NODEID=1 SLURMD_NODENAME=gpu-b7 "
                                        "SLURM_STEP_NODELIST='gpu-a[001-004,010],gpu-b7'"),
              start + start + "[--nnodes=2][--node_rank=1][--master_addr=gpu-a001][x.py]" + exit +
                  exit);
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
    std::string start = said(1, step::task_start_marker, ". gpu-b7");
    std::string exit = said(1, step::task_exit_marker, "254");
    EXPECT_EQ(run_allocated_task(nodes,
                                 "SLURM_NODEID=1 SLURMD_NODENAME=gpu-b7 "
                                 "SLURM_STEP_NODELIST='gpu-a[001-004],gpu-b7'",
                                 false),
              start + start + said(1, job::failed_check_marker, "master gpu-a001") + exit + exit);
}

} // namespace
} // namespace colossalai::slurm
