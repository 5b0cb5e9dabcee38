#include "task_markers.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <string>

namespace colossalai::slurm {
namespace {

using job::Outcome;

using test::exit_marker;
using test::start_marker;
std::string failed_check(const std::string& what) {
    return std::string(job::failed_check_marker) + what;
}

TEST(ReadSrunLine, ALineWithoutALabelIsSrunsOwn) {
    SrunLine line = read_srun_line("srun: error: node2: task 1: Exited with exit code 3");
    const auto* message = std::get_if<SrunMessage>(&line);
    ASSERT_NE(message, nullptr);
    EXPECT_EQ(message->text, "srun: error: node2: task 1: Exited with exit code 3");
}

TEST(ReadSrunLine, AStartMarkerMapsTheTaskToItsNodeRank) {
    SrunLine line = read_srun_line(" 3: " + start_marker("1 7.0 node7"));
    const auto* started = std::get_if<TaskStarted>(&line);
    ASSERT_NE(started, nullptr);
    EXPECT_EQ(started->task, 3);
    EXPECT_EQ(started->start.rank, 1);
    EXPECT_EQ(started->start.step, "7.0");
    EXPECT_EQ(started->start.node, "node7");
}

TEST(ReadSrunLine, AnyOtherLabelledLineIsTheTasksText) {
    std::string text = "2: epoch 1 " + start_marker("x"); // no start marker at its start
    SrunLine line = read_srun_line(text);
    const auto* task = std::get_if<TaskText>(&line);
    ASSERT_NE(task, nullptr);
    EXPECT_EQ(task->task, 2);
    EXPECT_EQ(task->text, "epoch 1 " + start_marker("x"));
    // A start marker without a rank is text too.
    EXPECT_TRUE(std::holds_alternative<TaskText>(read_srun_line("0: " + start_marker("node7"))));
}

TEST(ReadTaskLine, AFrameIsTheJobsBytes) {
    job::NodeCommand command;
    TaskLine line = read_task_line("loss 0.25\r\x1en", command);
    EXPECT_EQ(line.bytes, "loss 0.25\r\n");
    EXPECT_FALSE(line.failure);
    EXPECT_FALSE(line.exit_status);
    EXPECT_EQ(read_task_line("50%\r\x1ep", command).bytes, "50%\r");
    EXPECT_EQ(read_task_line("\x1ep", command).bytes, "");
}

// slurmstepd's own lines on a task's stderr are the node's, whole.
TEST(ReadTaskLine, ALineThatIsNoFrameIsPassedWithItsNewline) {
    job::NodeCommand command;
    std::string text = "slurmstepd: error: *** STEP 9.0 ON node1 CANCELLED AT 2026-12-04 ***";
    EXPECT_EQ(read_task_line(text, command).bytes, text + "\n");
    EXPECT_EQ(read_task_line("", command).bytes, "\n");
}

TEST(ReadTaskLine, TheExitMarkerEndsTheStream) {
    job::NodeCommand command;
    TaskLine line = read_task_line(exit_marker("3"), command);
    EXPECT_EQ(line.bytes, "");
    EXPECT_EQ(line.exit_status, 3);
}

TEST(ReadTaskLine, AMarkerThatDoesNotParseIsPassedOnAsALine) {
    job::NodeCommand command;
    for (const std::string& text :
         {exit_marker("x"), exit_marker(""), exit_marker("3 more"), failed_check("disk")}) {
        TaskLine line = read_task_line(text, command);
        EXPECT_EQ(line.bytes, text + "\n") << text;
        EXPECT_FALSE(line.exit_status) << text;
        EXPECT_FALSE(line.failure) << text;
    }
}

TEST(ReadTaskLine, APreflightFailureNamesItsSubjectFromTheNodesCommand) {
    job::NodeCommand command;
    command.working_directory = "/work/job";
    command.argv = {"torchrun", "train.py"};
    TaskLine line = read_task_line(failed_check("cwd"), command);
    ASSERT_TRUE(line.failure);
    EXPECT_EQ(line.failure->check, job::PreflightCheck::working_directory);
    EXPECT_EQ(line.failure->subject, "/work/job");
    EXPECT_EQ(line.bytes, "");
    EXPECT_FALSE(line.exit_status);
    line = read_task_line(failed_check("command"), command);
    ASSERT_TRUE(line.failure);
    EXPECT_EQ(line.failure->subject, "torchrun");
    line = read_task_line(failed_check("helper perl"), command);
    ASSERT_TRUE(line.failure);
    EXPECT_EQ(line.failure->check, job::PreflightCheck::helper);
    EXPECT_EQ(job::describe(*line.failure),
              "cannot find 'perl' on the node (--launcher slurm runs each task's job under it, so "
              "that the job's output crosses srun byte for byte; install it there, or use "
              "--launcher ssh)");
}

// As over SSH: 128+N is the signal N only when the launcher delivered N to the step.
TEST(TaskOutcome, AStatusAbove128IsASignalOnlyWhenTheLauncherSentIt) {
    const std::set<int> term_then_kill = {SIGTERM, SIGKILL};
    EXPECT_EQ(task_outcome(std::nullopt, 137, term_then_kill), Outcome::killed(9));
    EXPECT_EQ(task_outcome(std::nullopt, 143, term_then_kill), Outcome::killed(15));
    EXPECT_EQ(task_outcome(std::nullopt, 130, term_then_kill), Outcome::exited(130));
    EXPECT_EQ(task_outcome(std::nullopt, 143, {}), Outcome::exited(143));
    EXPECT_EQ(task_outcome(std::nullopt, 192, {64}), Outcome::killed(64));
    EXPECT_EQ(task_outcome(std::nullopt, 193, {65}), Outcome::exited(193));
    EXPECT_EQ(task_outcome(std::nullopt, 128, {0}), Outcome::exited(128));
    EXPECT_EQ(task_outcome(std::nullopt, 0, term_then_kill), Outcome::exited(0));
}

TEST(TaskOutcome, AFailedPreflightMeansTheJobCouldNotRun) {
    job::PreflightFailure failure{job::PreflightCheck::command, "torchrun"};
    EXPECT_EQ(task_outcome(failure, job::preflight_exit_status, {}),
              Outcome::cannot_run(job::describe(failure), job::preflight_exit_status));
}

TEST(ParseTaskStart, RankStepAndNodeName) {
    auto start = parse_task_start(std::string(task_start_marker) + "3 12.0 node7");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->rank, 3);
    EXPECT_EQ(start->step, "12.0");
    EXPECT_EQ(start->node, "node7");
    start = parse_task_start(std::string(task_start_marker) + "0 . ");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->step, ""); // Slurm did not say: no scancel
    EXPECT_EQ(start->node, "");
    for (const char* step : {"7", "7.", ".0", "7.0.1", "7.x", "-1.0", "7.0;rm"}) {
        start = parse_task_start(std::string(task_start_marker) + "0 " + step + " n");
        ASSERT_TRUE(start) << step;
        EXPECT_EQ(start->step, "") << step;
        EXPECT_EQ(start->node, "n") << step;
    }
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

} // namespace
} // namespace colossalai::slurm
