// Output that never holds a node back (issue #8), with local nodes: a progress bar on one node
// never holds another node's lines, bars stay live with several nodes in a pipe and on a
// terminal, and a launcher whose stdout nobody reads keeps its jobs and loses no byte.

#include "capture.hpp"
#include "launch_fixture.hpp"

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class RunProgress : public RunLaunch {
protected:
    void three_local_nodes() const {
        write_file(job() / "hosts", "localhost\n127.0.0.1\n127.0.0.2\n");
    }
    std::unique_ptr<Background> start_launcher_on(const Words& args, int fd) const {
        RunOptions options;
        options.cwd = job();
        options.env = launcher_env();
        // Without the rendezvous check, as two_local_nodes() launches.
        Words argv = {binary().string(), "run", "--no-rendezvous-check"};
        argv.insert(argv.end(), args.begin(), args.end());
        return std::make_unique<Background>(argv, options, fd, fd);
    }
};

// The deadlock of issue #8: rank 0 shows a bar (far past the 32 KiB line buffer, no newline)
// and waits for rank 1, which first logs 300 KB of warnings on the same stream. Through the
// old launcher rank 1 blocked in write() for ever.
TEST_F(RunProgress, ABarOnOneNodeNeverHoldsAFloodOnAnother) {
    two_local_nodes();
    std::string warnings;
    Words lines;
    for (int i = 0; i < 3000; ++i) {
        lines.push_back("warning " + std::to_string(i) + ": " + std::string(90, 'w'));
        warnings += lines.back() + "\n";
    }
    state_file("warnings", warnings);
    behave("0", "i=0\nwhile [ $i -lt 2000 ]; do printf '\\r%4d/2000 |%s|' $i "
                "'##########################' >&2; i=$((i+1)); done\n"
                "while [ ! -e \"$record/1.ready\" ]; do sleep 0.01; done\n"
                "printf '\\r2000/2000 done\\n' >&2\n");
    behave("1", "err warnings\nready\n");
    RunResult result = run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
    ASSERT_FALSE(result.timed_out);
    EXPECT_EQ(result.exit_code, 0);
    Words got;
    for (const std::string& line : lines_of(result.err)) {
        if (line.rfind("127.0.0.1: warning ", 0) == 0) {
            got.push_back(line.substr(11));
        }
    }
    EXPECT_TRUE(got == lines) << got.size() << " of " << lines.size() << " lines of rank 1";
    EXPECT_NE(result.err.find("\nlocalhost: 2000/2000 done\n"), std::string::npos);
    EXPECT_EQ(result.err.find('\r'), std::string::npos) << "a `\\r` would erase a prefix";
}

// With three nodes, each state of each bar reaches the launcher's output, prefixed, while the
// bar's line is still open: every node waits until the test has seen its state before it
// prints the next one, so a launcher that held a bar until its newline could never end. How
// long each state took is recorded (the interval is 200 ms), not asserted.
class RunProgressOutputs : public RunProgress, public ::testing::WithParamInterface<bool> {};

TEST_P(RunProgressOutputs, EachStateOfEveryBarAppearsWhileItsLineIsOpen) {
    bool terminal = GetParam();
    three_local_nodes();
    behave("all", "for i in 1 2 3; do printf '\\rrank %s step %s' $rank $i >&2\n"
                  "  while [ ! -e \"$record/seen.$rank.$i\" ]; do sleep 0.01; done; done\n"
                  "printf '\\rrank %s finished\\n' $rank >&2\n");
    OutputCapture output(terminal);
    auto launcher = start_launcher_on({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"},
                                      output.write_fd());
    output.close_write();
    const Words hosts = {"localhost", "127.0.0.1", "127.0.0.2"};
    double slowest = 0;
    for (int step = 1; step <= 3; ++step) {
        for (int rank = 0; rank < 3; ++rank) {
            std::string state =
                hosts[rank] + ": rank " + std::to_string(rank) + " step " + std::to_string(step);
            auto asked = std::chrono::steady_clock::now();
            ASSERT_TRUE(output.read_until(state)) << "not seen: " << state << "\n" << output.text();
            slowest = std::max(
                slowest,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count());
        }
        for (int rank = 0; rank < 3; ++rank) {
            write_file(m_dir / "record" /
                           ("seen." + std::to_string(rank) + "." + std::to_string(step)),
                       "");
        }
    }
    output.read_to_end();
    EXPECT_EQ(exit_code_of(*launcher, 20s), 0);
    RecordProperty("slowest_state_seconds", std::to_string(slowest));
    for (int rank = 0; rank < 3; ++rank) {
        std::string last = hosts[rank] + ": rank " + std::to_string(rank) + " finished";
        EXPECT_NE(output.text().find(last + (terminal ? "\r\n" : "\n")), std::string::npos)
            << "the last state stays as a line: " << last;
    }
    if (!terminal) {
        EXPECT_EQ(output.text().find('\r'), std::string::npos);
    }
}

INSTANTIATE_TEST_SUITE_P(PipeAndTerminal, RunProgressOutputs, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Terminal" : "Pipe"; });

// A pager left paused: nobody reads the launcher's stdout for a while. The jobs wait in write()
// as they would under `torchrun | less`; nothing is killed, and once reading resumes every byte
// arrives, then the summary.
TEST_F(RunProgress, AStdoutNobodyReadsPausesTheJobsAndLosesNothing) {
    two_local_nodes();
    std::string flood;
    for (int i = 0; i < 20000; ++i) {
        flood += "line " + std::to_string(i) + " " + std::string(40, 'f') + "\n";
    }
    state_file("flood", flood);
    behave("all", "out flood\necho \"rank $rank done\" >&2\n");
    OutputCapture output(false);
    auto launcher = start_launcher_on({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"},
                                      output.write_fd());
    output.close_write();
    // Nothing read: the nodes block once the pipes and the launcher's queue are full.
    std::this_thread::sleep_for(3s);
    EXPECT_TRUE(process_alive(recorded_pid(0)));
    EXPECT_TRUE(process_alive(recorded_pid(1)));
    EXPECT_FALSE(launcher->wait(0ms).has_value());
    output.read_to_end();
    EXPECT_EQ(exit_code_of(*launcher, 20s), 0);
    size_t lines_0 = 0;
    size_t lines_1 = 0;
    for (const std::string& line : lines_of(output.text())) {
        lines_0 += line.rfind("localhost: line ", 0) == 0 ? 1 : 0;
        lines_1 += line.rfind("127.0.0.1: line ", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(lines_0, 20000u);
    EXPECT_EQ(lines_1, 20000u);
    EXPECT_NE(output.text().find(summary_block({"localhost: success", "127.0.0.1: success"})),
              std::string::npos);
}

// Ctrl-C while nobody reads: the jobs still stop within the grace; the launcher then waits for
// its output to be read (nothing is lost), and a second signal would end that wait.
TEST_F(RunProgress, CtrlCWhileNobodyReadsStillStopsTheJobs) {
    two_local_nodes();
    behave("all",
           "spawn\npad=$(printf '%0100d' 0)\nready\nwhile :; do echo \"rank $rank $pad\"; done\n");
    OutputCapture output(false);
    auto launcher = start_launcher_on(
        {"--hostfile", "hosts", "--nproc_per_node", "1", "--kill-grace", "2", "t.py"},
        output.write_fd());
    output.close_write();
    ASSERT_TRUE(all_wait_for(2));
    std::this_thread::sleep_for(500ms); // the output is full by now
    launcher->signal(SIGINT);
    expect_job_gone(0, 3);
    expect_job_gone(1, 3);
    output.read_to_end();
    EXPECT_EQ(exit_code_of(*launcher, 20s), 130);
    EXPECT_NE(output.text().find("colossalai: received SIGINT; stopping all nodes"),
              std::string::npos);
    EXPECT_NE(output.text().find("====== Training on All Nodes ====="), std::string::npos);
}

} // namespace
} // namespace colossalai::test
