// What srun adds to its tasks' lines: the label, its own messages, the step a task names.

#include "task_lines.hpp"

#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::slurm {
namespace {

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

// A task's failed check names its subject from the node's command (job::parse_failed_check, as
// the step reads a task's Failed line); perl's own check says why Slurm needs it.
TEST(TaskFailure, APreflightFailureNamesItsSubjectFromTheNodesCommand) {
    job::NodeCommand command;
    command.working_directory = "/work/job";
    command.argv = {"torchrun", "train.py"};
    std::optional<job::PreflightFailure> failure = job::parse_failed_check("cwd", command);
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->check, job::PreflightCheck::working_directory);
    EXPECT_EQ(failure->subject, "/work/job");
    failure = job::parse_failed_check("command", command);
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->subject, "torchrun");
    failure = job::parse_failed_check("helper perl", command);
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->check, job::PreflightCheck::helper);
    EXPECT_EQ(
        job::describe(*failure),
        "cannot find 'perl' on the node (the launcher runs each task's job under it, so "
        "that the job's output crosses the launcher program byte for byte; install it there, or "
        "use "
        "--launcher ssh)");
}

TEST(SlurmStep, TwoNumbersOrNothingToSignal) {
    EXPECT_EQ(slurm_step("12.0"), "12.0");
    for (const char* handle : {"", ".", "7", "7.", ".0", "7.0.1", "7.x", "-1.0", "7.0;rm"}) {
        EXPECT_EQ(slurm_step(handle), "") << handle;
    }
}

} // namespace
} // namespace colossalai::slurm
