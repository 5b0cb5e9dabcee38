// `colossalai check --launcher mpirun`: each task's script run by a real /bin/sh (and perl, for
// the relay and the placement check) as mpirun would run it, and mpirun's output read back per
// node by the rank each line carries.

#include "../task_markers.hpp"
#include "../task_script_run.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/mpirun/mpirun_command.hpp"
#include "colossalai/mpirun/node_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::mpirun {
namespace {

using run::MpiKind;
using test::said;
using test::start_marker;
using test::task_line;
using Words = std::vector<std::string>;

// Two check nodes at this machine's address (so the placement check passes) unless `second`
// names another, each running `program`.
std::vector<job::NodeCommand> check_nodes_at(const std::string& second = "127.0.0.1",
                                             const Words& program = {"/bin/sh", "-c",
                                                                     "printf 'answer\\r\\n'; "
                                                                     "exit 4"}) {
    std::vector<job::NodeCommand> nodes = step::probe_nodes({"node-b", "node-a"}, program, "/");
    nodes[0].address = "127.0.0.1";
    nodes[1].address = second;
    return nodes;
}

std::string run_check_task(const std::vector<job::NodeCommand>& nodes, MpiKind mpi,
                           const std::string& variables) {
    return test::run_task_script(check_task_script(nodes, mpi), variables, true, "/usr/bin:/bin",
                                 "; echo \"[$?]\"");
}

// The rank comes from the MPI's variable; the program's bytes arrive exact between the start
// marker and the exit marker with its status; the task itself exits 0 (Open MPI would end every
// other task's check if one exited non-zero).
TEST(MpirunCheckTaskScript, RunsTheProgramBetweenTheMarkersAndExitsZero) {
    for (const auto& [mpi, variable] : {std::pair{MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=1"},
                                        std::pair{MpiKind::hydra, "PMI_RANK=1"}}) {
        SCOPED_TRACE(variable);
        EXPECT_EQ(run_check_task(check_nodes_at(), mpi, variable),
                  said(1, step::task_start_marker, "mpirun 127.0.0.1") +
                      said(1, step::task_start_marker, "mpirun 127.0.0.1") + "answer\r\n" +
                      said(1, step::task_exit_marker, "4") + said(1, step::task_exit_marker, "4") +
                      "[0]\n");
    }
}

// A task that mpirun placed on another machine than its node's, or whose program is missing,
// names the failed check and runs nothing; it still exits 0.
TEST(MpirunCheckTaskScript, AFailedCheckRunsNothingAndExitsZero) {
    std::string elsewhere =
        run_check_task(check_nodes_at("192.0.2.7"), MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=1");
    EXPECT_NE(elsewhere.find(said(1, job::failed_check_marker, "host 192.0.2.7")),
              std::string::npos)
        << elsewhere;
    EXPECT_EQ(elsewhere.find("answer"), std::string::npos) << elsewhere;
    EXPECT_TRUE(elsewhere.ends_with("[0]\n")) << elsewhere;

    std::string missing = run_check_task(check_nodes_at("127.0.0.1", {"/no/such/python"}),
                                         MpiKind::hydra, "PMI_RANK=0");
    EXPECT_NE(missing.find(task_line(0, std::string(job::failed_check_marker))), std::string::npos)
        << missing;
    EXPECT_TRUE(missing.ends_with("[0]\n")) << missing;
}

TEST(MpirunCheckTaskScript, ARankThatIsNoNodeRunsNothing) {
    std::string read =
        run_check_task(check_nodes_at(), MpiKind::open_mpi, "OMPI_COMM_WORLD_RANK=2");
    EXPECT_EQ(read, "colossalai: mpirun gave this task the rank '2' (OMPI_COMM_WORLD_RANK), not "
                    "one of the check's 2 nodes\n[127]\n");
}

// mpirun's command places one task per node in the hosts' order, each running the check's script.
TEST(MpirunCheckCommand, OneTaskPerNodeInTheHostsOrder) {
    std::vector<job::NodeCommand> nodes = check_nodes_at("10.0.0.2");
    std::string script = check_task_script(nodes, MpiKind::hydra);
    Words argv =
        mpirun_tasks_command(nodes, run::MpirunLaunch{"mpiexec", MpiKind::hydra, {"-v"}}, script);
    EXPECT_EQ(argv, (Words{"mpiexec", "-n", "2", "-ppn", "1", "-hosts", "127.0.0.1,10.0.0.2", "-v",
                           "/bin/sh", "-c", script, "colossalai-task"}));
}

// Each line is a node's by the rank it carries, whatever the order mpirun wrote them in; a line of
// no task's is mpirun's own; a node's lines count from its start marker on.
TEST(ReadCheckOutput, EachNodesAnswerByItsRankAndMpirunsOwnLines) {
    std::vector<job::NodeCommand> nodes = check_nodes_at();
    std::string output =
        task_line(1, start_marker("mpirun 127.0.0.1")) + "\n" + test::frame(0, "too early") + "\n" +
        task_line(0, start_marker("mpirun 127.0.0.1")) + "\n" + test::frame(1, "one") + "\n" +
        "mpirun: a notice\r\n" + test::frame(0, "zero") + "\n" + test::frame(1, " more") + "\n" +
        task_line(1, test::exit_marker("0")) + "\n" +
        task_line(7, start_marker("mpirun elsewhere")) + "\n" + "last words";
    CheckOutput read = read_check_output(output, nodes);
    ASSERT_EQ(read.answers.size(), 2u);
    EXPECT_TRUE(read.answers[0].started);
    EXPECT_EQ(read.answers[0].output, "zero\n");
    EXPECT_EQ(read.answers[0].exit_status, std::nullopt);
    EXPECT_EQ(read.answers[1].output, "one\n more\n");
    EXPECT_EQ(read.answers[1].exit_status, 0);
    EXPECT_EQ(read.mpirun_lines, (Words{"mpirun: a notice", "last words"}));
}

} // namespace
} // namespace colossalai::mpirun
