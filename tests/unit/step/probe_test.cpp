// What each node replies to a probe run through the family's launcher (check --launcher
// slurm|mpirun): its output, or why it holds none, in the launcher's words.

#include "colossalai/step/probe.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::step {
namespace {

using namespace std::chrono_literals;

std::vector<ProbeAnswer> four_answers() {
    std::vector<ProbeAnswer> answers(4);
    answers[1].started = true; // started, printed nothing yet, no status: the launcher's end
    answers[2].started = true;
    answers[2].output = "some";
    answers[2].exit_status = 3;
    answers[3].started = true;
    answers[3].failure = job::PreflightFailure{};
    return answers;
}

TEST(ProbeReplies, EachNodeSaysWhyItHoldsNoAnswerInTheLaunchersWords) {
    exec::CaptureResult ended;
    ended.started = true;
    ended.exit_code = 1;
    std::vector<ProbeReply> replies =
        probe_replies(four_answers(), "mpirun", ended, 70s, {"first", "mpirun: last"});
    ASSERT_EQ(replies.size(), 4u);
    EXPECT_EQ(replies[0].error,
              "mpirun started no check there (mpirun exited with status 1: mpirun: last)");
    EXPECT_EQ(replies[1].error,
              "the check printed nothing there (mpirun exited with status 1: mpirun: last)");
    EXPECT_EQ(replies[2].output, "some");
    EXPECT_EQ(replies[2].error, "the check printed nothing there (exit status 3)");
    EXPECT_EQ(replies[3].error, job::describe(job::PreflightFailure{}));

    exec::CaptureResult stopped;
    stopped.started = true;
    stopped.timed_out = true;
    EXPECT_EQ(probe_replies(four_answers(), "srun", stopped, 70s, {})[0].error,
              "srun started no check there (no answer within 70 s; srun was stopped)");

    exec::CaptureResult missing;
    missing.error = "No such file or directory";
    for (const ProbeReply& reply : probe_replies(four_answers(), "mpirun", missing, 70s, {})) {
        EXPECT_EQ(reply.error, "cannot run mpirun: No such file or directory");
        EXPECT_EQ(reply.output, "");
    }
}

} // namespace
} // namespace colossalai::step
