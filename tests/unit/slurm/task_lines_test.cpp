#include "task_lines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::slurm {
namespace {

using job::Outcome;

std::string start_marker(const std::string& rest) {
    return std::string(run::task_start_marker) + rest;
}
std::string exit_marker(const std::string& rest) {
    return std::string(run::task_exit_marker) + rest;
}
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
    SrunLine line = read_srun_line(" 3: " + start_marker("1 node7"));
    const auto* started = std::get_if<TaskStarted>(&line);
    ASSERT_NE(started, nullptr);
    EXPECT_EQ(started->task, 3);
    EXPECT_EQ(started->start.rank, 1);
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

TEST(ReadTaskLine, TheJobsTextIsPassedAsItIs) {
    job::NodeCommand command;
    TaskLine line = read_task_line("loss 0.25\r", command);
    EXPECT_EQ(line.text, "loss 0.25\r");
    EXPECT_FALSE(line.failure);
    EXPECT_FALSE(line.exit_status);
    EXPECT_EQ(read_task_line("", command).text, "");
}

TEST(ReadTaskLine, TheExitMarkerEndsTheStream) {
    job::NodeCommand command;
    TaskLine line = read_task_line(exit_marker("3"), command);
    EXPECT_EQ(line.text, "");
    EXPECT_EQ(line.exit_status, 3);
}

TEST(ReadTaskLine, AnExitMarkerAfterALastLineWithoutNewlineKeepsThatLine) {
    job::NodeCommand command;
    std::string text = "50%" + exit_marker("0"); // the views point into it
    TaskLine line = read_task_line(text, command);
    EXPECT_EQ(line.text, "50%");
    EXPECT_EQ(line.exit_status, 0);
}

TEST(ReadTaskLine, AMarkerThatDoesNotParseIsTheJobsText) {
    job::NodeCommand command;
    for (const std::string& text :
         {exit_marker("x"), exit_marker(""), "50%" + exit_marker("3 more"), failed_check("disk")}) {
        TaskLine line = read_task_line(text, command);
        EXPECT_EQ(line.text, text) << text;
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
    EXPECT_EQ(line.text, "");
    EXPECT_FALSE(line.exit_status);
    line = read_task_line(failed_check("command"), command);
    ASSERT_TRUE(line.failure);
    EXPECT_EQ(line.failure->subject, "torchrun");
}

TEST(TaskOutcome, AStatusAbove128IsTheSignalThatKilledTheJob) {
    EXPECT_EQ(task_outcome(std::nullopt, 137), Outcome::killed(9));
    EXPECT_EQ(task_outcome(std::nullopt, 192), Outcome::killed(64));
    EXPECT_EQ(task_outcome(std::nullopt, 193), Outcome::exited(193));
    EXPECT_EQ(task_outcome(std::nullopt, 128), Outcome::exited(128));
    EXPECT_EQ(task_outcome(std::nullopt, 0), Outcome::exited(0));
}

TEST(TaskOutcome, AFailedPreflightMeansTheJobCouldNotRun) {
    job::PreflightFailure failure{job::PreflightCheck::command, "torchrun"};
    EXPECT_EQ(task_outcome(failure, job::preflight_exit_status),
              Outcome::cannot_run(job::describe(failure), job::preflight_exit_status));
}

} // namespace
} // namespace colossalai::slurm
