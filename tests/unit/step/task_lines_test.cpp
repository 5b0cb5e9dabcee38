// The lines a task writes through a step's launcher process: each says its node's rank itself
// (src/step/task_lines.hpp), and its markers, as the wrapper's shell writes them, read back.

#include "../task_markers.hpp"
#include "process.hpp"

#include "colossalai/step/task_lines.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <string>

namespace colossalai::step {
namespace {

using job::Outcome;
using test::exit_marker;
using test::rs;
using test::start_marker;
using test::task_line;

std::string failed_check(const std::string& what) {
    return std::string(job::failed_check_marker) + what;
}

TEST(ReadTaskLine, AFrameIsItsRanksBytes) {
    TaskLine line = read_task_line(test::frame(3, "loss 0.25\r"));
    const auto* frame = std::get_if<Frame>(&line);
    ASSERT_NE(frame, nullptr);
    EXPECT_EQ(frame->rank, 3u);
    EXPECT_EQ(frame->bytes, "loss 0.25\r\n");
    EXPECT_EQ(std::get<Frame>(read_task_line(test::frame(0, "50%\r", 'p'))).bytes, "50%\r");
    EXPECT_EQ(std::get<Frame>(read_task_line(test::frame(0, "", 'p'))).bytes, "");
    EXPECT_EQ(std::get<Frame>(read_task_line(test::frame(123456789, "x"))).rank, 123456789u);
    // A job's own RS (doubled by the relay) and a job's own marker are its bytes.
    EXPECT_EQ(
        std::get<Frame>(read_task_line(test::frame(1, rs + rs + "colossalai-task-exit 0"))).bytes,
        rs + "colossalai-task-exit 0\n");
}

TEST(ReadTaskLine, TheMarkersSayTheirRank) {
    TaskLine line = read_task_line(task_line(2, start_marker("12.0 node7")));
    const auto* started = std::get_if<Started>(&line);
    ASSERT_NE(started, nullptr);
    EXPECT_EQ(started->rank, 2u);
    EXPECT_EQ(started->handle, "12.0");
    EXPECT_EQ(started->node, "node7");
    line = read_task_line(task_line(0, start_marker(". ")));
    ASSERT_TRUE(std::holds_alternative<Started>(line));
    EXPECT_EQ(std::get<Started>(line).handle, ".");
    EXPECT_EQ(std::get<Started>(line).node, "");
    line = read_task_line(task_line(1, exit_marker("143")));
    ASSERT_TRUE(std::holds_alternative<Exited>(line));
    EXPECT_EQ(std::get<Exited>(line).rank, 1u);
    EXPECT_EQ(std::get<Exited>(line).status, 143);
    line = read_task_line(task_line(3, std::string(job::notice_marker) + "pair 1.13 3.11"));
    ASSERT_TRUE(std::holds_alternative<Noticed>(line));
    EXPECT_EQ(std::get<Noticed>(line).rank, 3u);
    EXPECT_EQ(std::get<Noticed>(line).what, "pair 1.13 3.11");
    line = read_task_line(task_line(4, failed_check("helper perl")));
    ASSERT_TRUE(std::holds_alternative<Failed>(line));
    EXPECT_EQ(std::get<Failed>(line).rank, 4u);
    EXPECT_EQ(std::get<Failed>(line).what, "helper perl");
    line = read_task_line(task_line(3, std::string(task_ready_marker)));
    ASSERT_TRUE(std::holds_alternative<Ready>(line));
    EXPECT_EQ(std::get<Ready>(line).rank, 3u);
    // Only the marker itself: anything after it is no marker.
    EXPECT_TRUE(std::holds_alternative<Foreign>(
        read_task_line(task_line(3, std::string(task_ready_marker) + " x"))));
}

// The ready marker as the wrapper's shell writes it, on stdout only.
TEST(MarkerShell, WritesTheReadyMarkerWithItsRank) {
    test::RunResult result = test::run({"/bin/sh", "-c", "r=4\n" + ready_marker_shell("\"$r\"")});
    EXPECT_EQ(result.out, task_line(4, std::string(task_ready_marker)) + "\n");
    EXPECT_EQ(result.err, "");
}

// slurmstepd's lines, a wrapper's own error before it knew its rank, srun's and mpirun's
// messages, and a marker that does not parse: no task's line, passed on whole.
TEST(ReadTaskLine, AnyOtherLineIsForeignAndWhole) {
    for (const std::string& text :
         {std::string("slurmstepd: error: *** STEP 9.0 ON node1 CANCELLED AT 2026-12-04 ***"),
          std::string(), std::string("12: x"), "x" + rs + "loss" + rs + "n",
          "1234567890" + rs + "x" + rs + "n", rs + "x" + rs + "n", "-1" + rs + "x" + rs + "n",
          task_line(0, exit_marker("x")), task_line(0, exit_marker("")),
          task_line(0, exit_marker("3 more")), task_line(0, start_marker("7.0")),
          task_line(0, "x" + rs + "q"), task_line(0, rs + "colossalai-other 1"),
          exit_marker("3")}) {
        TaskLine line = read_task_line(text);
        const auto* foreign = std::get_if<Foreign>(&line);
        ASSERT_NE(foreign, nullptr) << text;
        EXPECT_EQ(foreign->text, text);
    }
}

// The wrapper's shell writes what read_task_line reads: run by a real /bin/sh.
TEST(MarkerShell, WritesTheMarkersWithTheirRankOnBothStreams) {
    std::string script = "r=5\n" + start_marker_shell("\"$r\"", "7.0", "node9") +
                         exit_marker_shell("\"$r\"", "3") + notice_shell("\"$r\"") +
                         "cai_note 'pair 1.13 3.11'\n" + failed_check_shell("\"$r\"") +
                         "cai_f 'helper perl'\necho not reached\n";
    test::RunResult result = test::run({"/bin/sh", "-c", script});
    EXPECT_EQ(result.exit_code, job::preflight_exit_status) << test::describe(result);
    std::string start = task_line(5, start_marker("7.0 node9")) + "\n";
    std::string exit = task_line(5, exit_marker("3")) + "\n";
    std::string preflight_exit =
        task_line(5, exit_marker(std::to_string(job::preflight_exit_status))) + "\n";
    EXPECT_EQ(result.out,
              start + exit + task_line(5, std::string(job::notice_marker) + "pair 1.13 3.11") +
                  "\n" + task_line(5, failed_check("helper perl")) + "\n" + preflight_exit);
    EXPECT_EQ(result.err, start + exit + preflight_exit);
    EXPECT_TRUE(std::holds_alternative<Started>(read_task_line(start.substr(0, start.size() - 1))));
}

// The rendezvous check's lines: each result with the task's rank; a failure with a result ends
// the task with the preflight's status, its command not started; a program that printed no
// result (not Python), or that passed, lets the task go on.
TEST(RendezvousCheckShell, PassesTheResultsOnAndEndsTheTaskOnAFailure) {
    std::string refused = std::string(job::rendezvous_marker) + "refused node1 10.0.0.1 29500";
    auto task = [](const std::string& probe) {
        return test::run(
            {"/bin/sh", "-c", "r=3\n" + rendezvous_check_shell("\"$r\"", probe) + "echo went on"});
    };
    test::RunResult failed =
        task("printf 'noise\\n\\036colossalai-rdzv refused node1 10.0.0.1 29500\\n'; exit 1");
    EXPECT_EQ(failed.exit_code, job::preflight_exit_status) << test::describe(failed);
    std::string preflight_exit =
        task_line(3, exit_marker(std::to_string(job::preflight_exit_status))) + "\n";
    EXPECT_EQ(failed.out, task_line(3, refused) + "\n" + preflight_exit);
    EXPECT_EQ(failed.err, preflight_exit);
    TaskLine line = read_task_line(task_line(3, refused));
    ASSERT_TRUE(std::holds_alternative<Rendezvous>(line));
    EXPECT_EQ(std::get<Rendezvous>(line).rank, 3u);
    EXPECT_EQ(std::get<Rendezvous>(line).result.outcome, job::RendezvousOutcome::refused);
    EXPECT_EQ(std::get<Rendezvous>(line).result.address, "10.0.0.1");

    test::RunResult passed = task("printf '\\036colossalai-rdzv answered node1 10.0.0.1 29500\\n'");
    EXPECT_EQ(passed.exit_code, 0) << test::describe(passed);
    EXPECT_EQ(passed.out,
              task_line(3, std::string(job::rendezvous_marker) + "answered node1 10.0.0.1 29500") +
                  "\nwent on\n");
    test::RunResult no_python = task("exit 127");
    EXPECT_EQ(no_python.exit_code, 0) << test::describe(no_python);
    EXPECT_EQ(no_python.out, "went on\n");
    // CI saw the launcher's stop end a connecting node's program (no result) and its job start
    // after it: a program ended by a signal ends the task with its status, the job not started.
    test::RunResult stopped = task("sh -c 'kill -TERM $$'");
    EXPECT_EQ(stopped.exit_code, 128 + SIGTERM) << test::describe(stopped);
    EXPECT_EQ(stopped.out, "");
    // The launcher stopped the task while its program ran (the engine's trap set cai_x): the
    // result is not reported, the task ends unstarted.
    test::RunResult interrupted = test::run(
        {"/bin/sh", "-c",
         "r=3 cai_x=1\n" +
             rendezvous_check_shell(
                 "\"$r\"",
                 "printf '\\036colossalai-rdzv refused node1 10.0.0.1 29500\\n'; exit 1") +
             "echo went on"});
    EXPECT_EQ(interrupted.exit_code, 0) << test::describe(interrupted);
    EXPECT_EQ(interrupted.out, "");
}

TEST(TaskOutcome, ARendezvousFailureIsThePreflightsStatus) {
    job::RendezvousResult result{job::RendezvousOutcome::refused, "node1", "10.0.0.1", 29500};
    EXPECT_EQ(task_outcome(TaskFailure{result}, 254, {}),
              Outcome::cannot_run(job::describe(result), job::preflight_exit_status));
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

} // namespace
} // namespace colossalai::step
