// The srun transport against a stand-in for srun: a shell script that prints what srun prints
// (`--label`ed lines of several tasks, interleaved, markers included) and exits.

#include "../recording_output.hpp"

#include "colossalai/slurm/slurm_transport.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <unistd.h>

#include <csignal>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::slurm {
namespace {

using output::Stream;

using colossalai::test::RecordingOutput; // what one node received

struct StepRun {
    std::vector<RecordingOutput> outputs;
    std::vector<std::optional<job::Outcome>> results;
    std::string notices;
};

// Runs `script` as "srun" for `tasks` nodes until every node has a result; a non-zero
// `signal_before_go` is sent to node 0 before go().
StepRun run_step(const std::string& script, size_t tasks, int signal_before_go = 0) {
    StepRun run;
    run.outputs.resize(tasks);
    SlurmTransport transport({"/bin/sh", "-c", script}, tasks, "/", {"PATH=/usr/bin:/bin"},
                             std::chrono::milliseconds(500),
                             [&run](std::string_view text) { run.notices += text; });
    std::vector<job::NodeCommand> commands(tasks);
    std::vector<std::unique_ptr<job::Process>> processes;
    for (size_t rank = 0; rank < tasks; ++rank) {
        commands[rank].rank = static_cast<int>(rank);
        processes.push_back(transport.start(commands[rank], run.outputs[rank]));
    }
    if (signal_before_go != 0) {
        processes[0]->signal(signal_before_go);
    }
    for (auto& process : processes) {
        process->go();
    }
    run.results.resize(tasks);
    for (int round = 0; round < 100000; ++round) {
        std::vector<pollfd> fds;
        std::vector<std::pair<size_t, size_t>> spans;
        bool pending = false;
        for (size_t rank = 0; rank < tasks; ++rank) {
            if (!run.results[rank]) {
                run.results[rank] = processes[rank]->result();
            }
            size_t begin = fds.size();
            if (!run.results[rank]) {
                pending = true;
                processes[rank]->collect_fds(fds);
            }
            spans.emplace_back(begin, fds.size());
        }
        if (!pending) {
            break;
        }
        ::poll(fds.data(), fds.size(), 100);
        for (size_t rank = 0; rank < tasks; ++rank) {
            if (!run.results[rank]) {
                processes[rank]->process_events(std::span<const pollfd>(fds).subspan(
                    spans[rank].first, spans[rank].second - spans[rank].first));
            }
        }
    }
    return run;
}

// A line that srun would print for task `task`.
std::string labelled(int task, const std::string& text, bool to_err = false) {
    return "printf '%s\\n' " + util::shell_quote(std::to_string(task) + ": " + text) +
           (to_err ? " >&2" : "") + "\n";
}
std::string markers(int task, const std::string& which, int value) {
    std::string text = "\x1e"
                       "colossalai-task-" +
                       which + " " + std::to_string(value);
    return labelled(task, text) + labelled(task, text, true);
}

TEST(SlurmTransport, SplitsSrunsLabelledOutputByTheTasksNodeRank) {
    // Slurm's task 0 runs the plan's rank 1 and the other way round.
    std::string script = markers(0, "start", 1) + markers(1, "start", 0) +
                         labelled(1, "rank 0 out") + labelled(0, "rank 1 out") +
                         labelled(0, "rank 1: err", true) + labelled(1, "") +
                         "printf 'srun: error: node2: task 0: Exited with exit code 3\\n' >&2\n" +
                         markers(0, "exit", 3) + markers(1, "exit", 0);
    StepRun run = run_step(script, 2);
    EXPECT_EQ(run.outputs[0].out, "rank 0 out\n\n");
    EXPECT_EQ(run.outputs[0].err, "");
    EXPECT_EQ(run.outputs[1].out, "rank 1 out\n");
    EXPECT_EQ(run.outputs[1].err, "rank 1: err\n");
    for (const RecordingOutput& output : run.outputs) {
        EXPECT_EQ(output.out_closed, 1);
        EXPECT_EQ(output.err_closed, 1);
    }
    EXPECT_EQ(run.notices, "colossalai: srun: error: node2: task 0: Exited with exit code 3\n");
    ASSERT_TRUE(run.results[0] && run.results[1]);
    EXPECT_TRUE(run.results[0]->success());
    EXPECT_EQ(*run.results[1], job::Outcome::exited(3));
}

TEST(SlurmTransport, ALastLineWithoutItsNewlineKeepsItsText) {
    StepRun run = run_step(markers(0, "start", 0) +
                               labelled(0, "50%\x1e"
                                           "colossalai-task-exit 0") +
                               labelled(0,
                                        "\x1e"
                                        "colossalai-task-exit 0",
                                        true),
                           1);
    EXPECT_EQ(run.outputs[0].out, "50%");
    EXPECT_EQ(run.outputs[0].out_closed, 1);
    ASSERT_TRUE(run.results[0]);
    EXPECT_TRUE(run.results[0]->success());
}

TEST(SlurmTransport, AStatusAbove128IsTheSignalThatKilledTheCommand) {
    StepRun run = run_step(markers(0, "start", 0) + markers(0, "exit", 143), 1);
    ASSERT_TRUE(run.results[0]);
    EXPECT_EQ(*run.results[0], job::Outcome::killed(SIGTERM));
}

TEST(SlurmTransport, ATaskWithoutAnExitStatusFailsWithSrunsStatus) {
    std::string script = markers(0, "start", 0) + markers(1, "start", 1) + markers(0, "exit", 0) +
                         labelled(1, "cut short") + "exit 1\n";
    StepRun run = run_step(script, 2);
    ASSERT_TRUE(run.results[0] && run.results[1]);
    EXPECT_TRUE(run.results[0]->success());
    EXPECT_EQ(*run.results[1],
              job::Outcome::connection_lost("no exit status from the task (srun exit code 1)", 1));
    EXPECT_EQ(run.outputs[1].out, "cut short\n");
    EXPECT_EQ(run.outputs[1].out_closed, 1);
}

TEST(SlurmTransport, ALineOfATaskWithoutAStartMarkerIsANotice) {
    StepRun run = run_step(labelled(0, "early") + "exit 2\n", 1);
    EXPECT_EQ(run.notices, "colossalai: srun: task 0: early\n");
    ASSERT_TRUE(run.results[0]);
    // The task never reported its start or end: srun's status is all there is.
    EXPECT_EQ(*run.results[0],
              job::Outcome::connection_lost("no exit status from the task (srun exit code 2)", 2));
}

TEST(SlurmTransport, StoppedBeforeGoNothingStarts) {
    StepRun run = run_step("echo started > /dev/stderr\n", 2, SIGINT);
    for (size_t rank = 0; rank < 2; ++rank) {
        ASSERT_TRUE(run.results[rank]);
        EXPECT_EQ(*run.results[rank], job::Outcome::not_started());
    }
    EXPECT_EQ(run.notices, "");
}

TEST(SlurmTransport, ASrunThatCannotBeStartedFailsEveryNode) {
    StepRun run;
    run.outputs.resize(1);
    SlurmTransport transport({"/nonexistent/srun"}, 1, "/", {"PATH=/usr/bin:/bin"},
                             std::chrono::milliseconds(100),
                             [&run](std::string_view text) { run.notices += text; });
    job::NodeCommand command;
    std::unique_ptr<job::Process> process = transport.start(command, run.outputs[0]);
    process->go();
    std::optional<job::Outcome> result = process->result();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->kind(), job::Outcome::Kind::cannot_run);
    EXPECT_EQ(result->status(), 127);
    EXPECT_NE(result->reason().find("/nonexistent/srun"), std::string::npos) << result->reason();
    EXPECT_NE(run.notices.find("colossalai: srun: "), std::string::npos);
}

} // namespace
} // namespace colossalai::slurm
