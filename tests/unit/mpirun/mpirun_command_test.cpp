// mpirun's command, which MPI a program is, --mpirun-args, and each task's script run by a real
// /bin/sh (and perl, for the relay and the placement check).

#include "../task_script_run.hpp"
#include "files.hpp"
#include "process.hpp"
#include "usage_message.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/strings.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace colossalai::mpirun {
namespace {

using job::NodeCommand;
using run::MpiKind;
using Words = std::vector<std::string>;
using namespace std::chrono_literals;

// Two nodes whose addresses are this machine's (`127.0.0.1`, so the placement check passes)
// unless `second` names another.
std::vector<NodeCommand> two_nodes(const std::string& second = "127.0.0.1") {
    std::vector<NodeCommand> nodes;
    for (int rank = 0; rank < 2; ++rank) {
        NodeCommand node;
        node.host = rank == 0 ? "node-b" : "node-a";
        node.address = rank == 0 ? "127.0.0.1" : second;
        node.rank = rank;
        node.argv = {"printf", "%s|", "--nnodes=2", "--node_rank=" + std::to_string(rank),
                     "it's",   "a b"};
        node.words = job::NodeWords{3, std::nullopt};
        node.environment = job::SharedVector<job::EnvVar>(std::vector<job::EnvVar>{
            {"CAI_TEST_VALUE", "a b 'c' $(x)"}, {"OMPI_COMM_WORLD_RANK", "9"}});
        nodes.push_back(node);
    }
    return nodes;
}

TEST(DetectMpi, FromWhatVersionPrints) {
    EXPECT_EQ(detect_mpi("mpirun.openmpi (OpenRTE) 4.1.4\n\nReport bugs to "
                         "http://www.open-mpi.org/community/help/\n"),
              MpiKind::open_mpi);
    EXPECT_EQ(detect_mpi("mpirun (Open MPI) 5.0.3\n"), MpiKind::open_mpi);
    EXPECT_EQ(
        detect_mpi("HYDRA build details:\n    Version:                                 4.0.2\n"),
        MpiKind::hydra);
    EXPECT_EQ(detect_mpi("Intel(R) MPI Library for Linux* OS, Version 2021.10\n"), std::nullopt);
    EXPECT_EQ(detect_mpi(""), std::nullopt);
}

TEST(ParseMpirunArgs, SplitsAsAShellWould) {
    EXPECT_EQ(parse_mpirun_args("--mca plm_rsh_agent 'ssh -p 2222' -x\\ y"),
              (Words{"--mca", "plm_rsh_agent", "ssh -p 2222", "-x y"}));
    EXPECT_EQ(parse_mpirun_args(""), Words{});
    EXPECT_EQ(test::usage_message([] { parse_mpirun_args("--mca a 'b"); }),
              "--mpirun-args: unterminated ' quote");
}

TEST(ParseMpirunArgs, RefusesWhatTheLauncherSets) {
    for (const char* word : {"-np", "-n", "--host", "-hosts", "--map-by", "-ppn", "--hostfile",
                             "--tag-output", "--map-by=node"}) {
        EXPECT_EQ(test::usage_message([&] { parse_mpirun_args(std::string(word) + " 2"); }),
                  "--mpirun-args: '" + std::string(word) + "' is set by the launcher itself")
            << word;
    }
}

TEST(TaskSignals, AreTheOnesEachMpiForwards) {
    EXPECT_EQ(task_signals(MpiKind::open_mpi).go, SIGUSR1);
    EXPECT_EQ(task_signals(MpiKind::open_mpi).stop, SIGUSR2);
    EXPECT_EQ(task_signals(MpiKind::open_mpi).kill, SIGUSR2);
    EXPECT_EQ(task_signals(MpiKind::hydra).go, SIGALRM);
    EXPECT_EQ(task_signals(MpiKind::hydra).stop, SIGTERM);
    EXPECT_EQ(task_signals(MpiKind::hydra).kill, SIGUSR1);
}

// The rendezvous check of two nodes, node 0 listening on 29500, by `python`.
job::RendezvousPlan rendezvous_check(const std::string& python) {
    return job::RendezvousPlan{.python = python,
                               .token = "0123456789abcdef",
                               .listener = 0,
                               .address = "127.0.0.1",
                               .port = 29500,
                               .nodes = 2};
}

TEST(BuildMpirunCommand, OpenMpiOneTaskPerNodeInPlanOrder) {
    run::MpirunLaunch launch{"/opt/mpi/bin/mpirun", MpiKind::open_mpi, {"--mca", "x", "y"}};
    Words argv = build_mpirun_command(two_nodes("10.0.0.2"), launch);
    ASSERT_EQ(argv.size(), 19u);
    EXPECT_EQ(Words(argv.begin(), argv.begin() + 15),
              (Words{"/opt/mpi/bin/mpirun", "-np", "2", "--host", "127.0.0.1,10.0.0.2", "--map-by",
                     "ppr:1:node", "--bind-to", "none", "--mca",
                     "odls_base_signal_direct_children_only", "1", "--mca", "x", "y"}));
    EXPECT_EQ(argv[15], "/bin/sh");
    EXPECT_EQ(argv[16], "-c");
    EXPECT_EQ(argv[17], mpirun_task_script(two_nodes("10.0.0.2"), MpiKind::open_mpi));
    EXPECT_EQ(argv[18], "colossalai-task");
}

TEST(BuildMpirunCommand, HydraHostsInPlanOrder) {
    run::MpirunLaunch launch{"mpiexec", MpiKind::hydra, {"-launcher", "ssh"}};
    Words argv = build_mpirun_command(two_nodes("10.0.0.2"), launch);
    EXPECT_EQ(Words(argv.begin(), argv.begin() + 9),
              (Words{"mpiexec", "-n", "2", "-ppn", "1", "-hosts", "127.0.0.1,10.0.0.2", "-launcher",
                     "ssh"}));
    EXPECT_EQ(argv[11], mpirun_task_script(two_nodes("10.0.0.2"), MpiKind::hydra));
}

// The rendezvous check's token is fresh for each launch: the script's first argument, after
// `colossalai-task`, which every task's probe passes on.
TEST(BuildMpirunCommand, TheRendezvousTokenIsTheScriptsFirstArgument) {
    run::MpirunLaunch launch{"mpiexec", MpiKind::hydra, {}};
    Words argv = build_mpirun_command(two_nodes(), launch, rendezvous_check("python3"));
    ASSERT_EQ(argv.size(), 12u);
    EXPECT_EQ(argv[10], "colossalai-task");
    EXPECT_EQ(argv[11], "0123456789abcdef");
    EXPECT_EQ(argv[9],
              mpirun_task_script(two_nodes(), MpiKind::hydra, rendezvous_check("python3")));
    EXPECT_NE(argv[9].find("--listen 29500 --expect 1 --token \"$1\""), std::string::npos)
        << argv[9];
    EXPECT_NE(argv[9].find("--connect 127.0.0.1 --port 29500 --retry --token \"$1\""),
              std::string::npos)
        << argv[9];
}

TEST(BuildMpirunCommand, FromThePlansLaunchIntent) {
    run::Plan plan;
    plan.nodes = two_nodes();
    run::MpirunLaunch launch{"mpirun", MpiKind::open_mpi, {}};
    EXPECT_EQ(mpirun_command(plan, launch), build_mpirun_command(plan.nodes, launch));
}

TEST(MpirunTaskScript, RefusesCommandsThatDifferInMoreThanTheRank) {
    std::vector<NodeCommand> nodes = two_nodes();
    nodes[1].argv.back() = "other";
    EXPECT_THROW(mpirun_task_script(nodes, MpiKind::open_mpi), Error);
}

using test::said;

// A task's script run by a real /bin/sh (test::run_task_script) and let go with `go` once ready,
// its exit status first: `[N]`.
std::string run_script(const std::string& script, const std::string& variables,
                       const std::string& go = "USR1") {
    return test::run_task_script(script, variables, true, "/usr/bin:/bin", "; echo \"[$?]\"", go);
}

// The rank comes from the MPI's variable, never from the launcher's environment that the task
// exports (the launcher may itself run inside an MPI job); the environment arrives exactly;
// the wrapper exits 0 whatever the job's status, which travels in the exit marker.
TEST(MpirunTaskScript, OpenMpiRunsItsRanksCommandBetweenTheMarkers) {
    std::vector<NodeCommand> nodes = two_nodes();
    nodes[0].argv = {"sh", "-c", "printf '%s|' \"$CAI_TEST_VALUE\" \"$@\"; exit 3", "x",
                     "--node_rank=0"};
    nodes[1].argv = nodes[0].argv;
    nodes[1].argv[4] = "--node_rank=1";
    nodes[0].words = job::NodeWords{4, std::nullopt};
    nodes[1].words = nodes[0].words;
    std::string read =
        run_script(mpirun_task_script(nodes, MpiKind::open_mpi), "OMPI_COMM_WORLD_RANK=1");
    EXPECT_EQ(read, "[0]\n" + said(1, step::task_ready_marker, "") +
                        said(1, step::task_start_marker, "mpirun 127.0.0.1") +
                        said(1, step::task_start_marker, "mpirun 127.0.0.1") +
                        "a b 'c' $(x)|--node_rank=1|" + said(1, step::task_exit_marker, "3") +
                        said(1, step::task_exit_marker, "3"));
}

TEST(MpirunTaskScript, HydraReadsPmiRank) {
    std::string read =
        run_script(mpirun_task_script(two_nodes(), MpiKind::hydra), "PMI_RANK=0", "ALRM");
    EXPECT_NE(read.find("--nnodes=2|--node_rank=0|it's|a b|"), std::string::npos) << read;
    EXPECT_NE(read.find(said(0, step::task_exit_marker, "0")), std::string::npos) << read;
}

TEST(MpirunTaskScript, ARankThatIsNoNodeStartsNothing) {
    std::string read =
        run_script(mpirun_task_script(two_nodes(), MpiKind::open_mpi), "OMPI_COMM_WORLD_RANK=2");
    EXPECT_EQ(read, "[127]\ncolossalai: mpirun gave this task the rank '2' (OMPI_COMM_WORLD_RANK), "
                    "not one of the run's 2 nodes\n");
}

// The kill before the task is let go: it ends without its start marker, its job never started.
TEST(MpirunTaskScript, TheKillBeforeTheGoStartsNothing) {
    for (auto [mpi, variable, kill] :
         {std::tuple{MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=0", "USR2"},
          std::tuple{MpiKind::hydra, "PMI_RANK=0", "USR1"},
          std::tuple{MpiKind::hydra, "PMI_RANK=0", "TERM"}}) {
        EXPECT_EQ(run_script(mpirun_task_script(two_nodes(), mpi), variable, kill),
                  "[0]\n" + said(0, step::task_ready_marker, ""))
            << kill;
    }
}

// Hydra passes the launcher's kill (or stop) to the task's whole process group: a preflight
// check it kills (here the placement check's perl, which sends the signal to the wrapper and
// dies of it) is no failed check, and the task ends unstarted, with no marker but its ready one.
TEST(MpirunTaskScript, ACheckKilledByTheStopIsNoFailedCheck) {
    for (auto [mpi, variable, kill] :
         {std::tuple{MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=0", "USR2"},
          std::tuple{MpiKind::hydra, "PMI_RANK=0", "USR1"},
          std::tuple{MpiKind::hydra, "PMI_RANK=0", "TERM"}}) {
        test::TempDir bin;
        bin.write("perl",
                  std::string("#!/bin/sh\nkill -") + kill + " $PPID\nkill -" + kill + " $$\n",
                  0755);
        std::string read =
            test::run_task_script(mpirun_task_script(two_nodes(), mpi), variable, true,
                                  bin.path().string() + ":/usr/bin:/bin", "; echo \"[$?]\"");
        EXPECT_EQ(read.find(job::failed_check_marker), std::string::npos) << kill << ": " << read;
        EXPECT_EQ(read.find(step::task_exit_marker), std::string::npos) << kill << ": " << read;
        EXPECT_NE(read.find("[0]\n"), std::string::npos) << kill << ": " << read;
    }
}

// The wait's sleep ends whatever it does with the stop signals: a `go` that comes as the sleep is
// forked reaches it while it still has the wrapper's traps, which took a SIGTERM and lost it (a
// sleep left holding the task's output kept Open MPI's mpirun from ever ending). Here a sleep
// that ignores SIGTERM stands for it.
TEST(MpirunTaskScript, TheWaitsSleepEndsEvenIfItLostASigterm) {
    test::TempDir bin;
    std::filesystem::path pid = bin / "sleep.pid";
    bin.write("sleep",
              "#!/bin/sh\necho $$ >" + util::shell_quote(pid.string()) +
                  "\ntrap '' TERM\nexec /bin/sleep 600 >/dev/null 2>&1\n",
              0755);
    std::string read = test::run_task_script(
        mpirun_task_script(two_nodes(), MpiKind::open_mpi), "OMPI_COMM_WORLD_RANK=0", true,
        bin.path().string() + ":/usr/bin:/bin", "; echo \"[$?]\"", "USR1", pid.string());
    EXPECT_NE(read.find(said(0, step::task_exit_marker, "0")), std::string::npos) << read;
    std::optional<int> sleeping = util::parse_integer<int>(util::trim(test::read_file(pid)));
    ASSERT_TRUE(sleeping) << test::read_file(pid);
    bool ended = test::eventually([&] { return ::kill(*sleeping, 0) != 0; }, 10s);
    EXPECT_TRUE(ended) << "the wait's sleep, process " << *sleeping << ", outlived its task";
    if (!ended) {
        ::kill(*sleeping, SIGKILL);
    }
}

// A task that mpirun placed on a machine without its node's address fails its preflight
// (`host ADDRESS`) and starts nothing.
TEST(MpirunTaskScript, ATaskOnAnotherMachineFailsBeforeItsJob) {
    std::string read = run_script(mpirun_task_script(two_nodes("192.0.2.7"), MpiKind::open_mpi),
                                  "OMPI_COMM_WORLD_RANK=1");
    EXPECT_EQ(read, "[0]\n" + said(1, job::failed_check_marker, "host 192.0.2.7") +
                        said(1, step::task_exit_marker, "254") +
                        said(1, step::task_exit_marker, "254"));
    NodeCommand node = two_nodes().at(1);
    std::optional<job::PreflightFailure> failure = job::parse_failed_check("host 192.0.2.7", node);
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->check, job::PreflightCheck::placement);
    EXPECT_EQ(failure->subject, "192.0.2.7");
}

// The rendezvous check runs after the preflight and before the ready marker: a task whose check
// failed (here a fake python that prints a refused connection) names it and is never ready, so
// the go is never sent; one whose check passed is ready, and its job starts at the go.
TEST(MpirunTaskScript, ATaskWhoseRendezvousCheckFailedIsNeverReady) {
    test::TempDir bin;
    std::string refused = std::string(job::rendezvous_marker) + "refused 127.0.0.1 127.0.0.1 29500";
    bin.write(
        "python3",
        "#!/bin/sh\nprintf '\\036colossalai-rdzv refused 127.0.0.1 127.0.0.1 29500\\n'\nexit 1\n",
        0755);
    std::string failed = test::run_task_script(
        mpirun_task_script(two_nodes(), MpiKind::open_mpi,
                           rendezvous_check((bin / "python3").string())),
        "OMPI_COMM_WORLD_RANK=1", true, "/usr/bin:/bin", "; echo \"[$?]\"", "USR1");
    EXPECT_EQ(failed, "[0]\n" + said(1, refused, "") + said(1, step::task_exit_marker, "254") +
                          said(1, step::task_exit_marker, "254"));

    bin.write("python3",
              "#!/bin/sh\nprintf '\\036colossalai-rdzv answered 127.0.0.1 127.0.0.1 29500\\n'\n",
              0755);
    std::string passed =
        test::run_task_script(mpirun_task_script(two_nodes(), MpiKind::hydra,
                                                 rendezvous_check((bin / "python3").string())),
                              "PMI_RANK=1", true, "/usr/bin:/bin", "; echo \"[$?]\"", "ALRM");
    std::size_t answered = passed.find("answered 127.0.0.1");
    std::size_t ready = passed.find(said(1, step::task_ready_marker, ""));
    EXPECT_NE(answered, std::string::npos) << passed;
    EXPECT_LT(answered, ready) << passed;
    EXPECT_NE(passed.find("--nnodes=2|--node_rank=1|it's|a b|"), std::string::npos) << passed;
}

// The launcher's kill while a task's check runs: Hydra's reaches the program too, which dies of
// it; Open MPI's reaches only the wrapper, whose trap runs once the program ended (here with a
// result of its own). Either way the task ends unstarted, the result not reported, never ready.
// (The fake python's parent is the shell of the check's `$(...)`; the wrapper is above it.)
TEST(MpirunTaskScript, TheKillDuringTheRendezvousCheckStartsNothing) {
    for (auto [mpi, variable, kill, dies] :
         {std::tuple{MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=1", "USR2", false},
          std::tuple{MpiKind::hydra, "PMI_RANK=1", "USR1", true}}) {
        test::TempDir bin;
        bin.write("python3",
                  std::string("#!/bin/sh\nkill -") + kill +
                      " \"$(cut -d' ' -f4 /proc/$PPID/stat)\"\n" +
                      (dies ? std::string("kill -") + kill + " $$\n" : std::string()) +
                      "printf '\\036colossalai-rdzv refused 127.0.0.1 127.0.0.1 29500\\n'\n"
                      "exit 1\n",
                  0755);
        std::string read = test::run_task_script(
            mpirun_task_script(two_nodes(), mpi, rendezvous_check((bin / "python3").string())),
            variable, true, "/usr/bin:/bin", "; echo \"[$?]\"");
        EXPECT_EQ(read, "[0]\n") << kill;
    }
}

} // namespace
} // namespace colossalai::mpirun
