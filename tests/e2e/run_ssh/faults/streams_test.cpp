// Odd output streams of a node over SSH: a 1 MiB line without a final newline, and a node that
// closes its stdout but runs on, printing on stderr. Figures in docs/reliability.md ("Faults,
// measured", over SSH).

#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshOddStreams : public SharedSshCluster<2> {};

// node1 prints one line of 1 MiB (512 KiB of x, then 512 KiB of y) and no newline; node2 prints a
// short line while node1's line is being written. node2's line never waits for node1's (it
// arrives while node1 is held back); node1's line arrives complete, in pieces past the launcher's
// line buffer (`node1: ` then `node1 (cont.): `), and gets its newline when its stream closes;
// the summary follows on stderr, on lines of its own.
TEST_F(SshOddStreams, AMebibyteLineWithoutNewlineArrivesWholeThenTheSummary) {
    const size_t half = 512 * 1024;
    FaultJob job(cluster(), "longline");
    job.behave("0", "head -c " + std::to_string(half) + " /dev/zero | tr '\\0' x\n" +
                        "await rest\n" + "head -c " + std::to_string(half) +
                        " /dev/zero | tr '\\0' y\n");
    job.behave("1", "await short\necho 'node 2 line'\nready\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2");
    // The first half is on its way out.
    EXPECT_TRUE(eventually(
        [&] {
            std::error_code error;
            auto size = std::filesystem::file_size(job.out_file(), error);
            return !error && size > 64 * 1024;
        },
        60s))
        << job.err();
    job.release("short");
    EXPECT_TRUE(job.ready(1)) << job.err();
    // node1's line is still open: node2's line is out all the same.
    EXPECT_TRUE(eventually(
        [&] { return job.out().find("\nnode2: node 2 line\n") != std::string::npos; }, 30s));
    job.release("rest");
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    std::string node1;
    size_t others = 0;
    for (const std::string& line : lines_of(job.out())) {
        if (line.rfind("node1: ", 0) == 0) {
            EXPECT_TRUE(node1.empty()) << "node1's line started twice";
            node1 += line.substr(7);
        } else if (line.rfind("node1 (cont.): ", 0) == 0) {
            node1 += line.substr(15);
        } else {
            EXPECT_EQ(line, "node2: node 2 line");
            ++others;
        }
    }
    EXPECT_EQ(others, 1u);
    const std::string expected = std::string(half, 'x') + std::string(half, 'y');
    EXPECT_EQ(node1.size(), expected.size());
    EXPECT_TRUE(node1 == expected) << "node1's line differs";
    EXPECT_EQ(job.out().back(), '\n');
    EXPECT_EQ(job.err(), summary_block({"node1: success", "node2: success"}));
    job.expect_none_left(10s);
}

// The launcher is stopped while node1 prints its last lines, stdout and stderr in turn, and
// ends: the output, the end of both streams, the exit status and the channel's close wait in the
// socket when it resumes. Every byte still arrives: libssh refuses writes (heartbeats, control
// lines) once the close came in, while output before it may still be in its buffers.
TEST_F(SshOddStreams, TheLastOutputOfANodeThatEndedWhileTheLauncherWasStoppedArrivesWhole) {
    FaultJob job(cluster(), "stopped");
    std::string script = "ready\nawait go\n";
    std::string expected_out;
    std::string expected_err;
    for (int k = 0; k < 6; ++k) {
        std::string tag = std::to_string(k);
        script += "head -c 4000 /dev/zero | tr '\\0' o; echo " + tag + "\n" +
                  "head -c 3000 /dev/zero | tr '\\0' e >&2; echo " + tag + " >&2\n";
        expected_out += "node1: " + std::string(4000, 'o') + tag + "\n";
        expected_err += "node1: " + std::string(3000, 'e') + tag + "\n";
    }
    script += "echo last\n";
    expected_out += "node1: last\n";
    job.behave("0", script);
    job.behave("1", "ready\nawait go\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2", {"--ssh-timeout", "600"});
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    launcher->signal(SIGSTOP);
    job.release("go");
    bool ended = eventually([&] { return job.ended_on(1) && job.ended_on(2); }, 30s);
    std::this_thread::sleep_for(300ms); // sshd sends what is left, the statuses and the close
    launcher->signal(SIGCONT);
    EXPECT_TRUE(ended) << "the nodes did not end while the launcher was stopped";
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    std::string out = job.out();
    EXPECT_TRUE(out == expected_out) << out.size() << " bytes instead of " << expected_out.size();
    std::string err = job.err();
    std::string expected = expected_err + summary_block({"node1: success", "node2: success"});
    EXPECT_TRUE(err == expected) << err.size() << " bytes instead of " << expected.size() << "\n"
                                 << err.substr(err.size() > 300 ? err.size() - 300 : 0);
    job.expect_none_left(10s);
}

// node1 closes its stdout, says so on stderr and runs on until released, then prints on stderr
// again and exits 0. The launcher keeps streaming node1's stderr while it runs, waits for its exit
// and succeeds.
TEST_F(SshOddStreams, ANodeThatClosesItsStdoutIsStillStreamedAndAwaited) {
    FaultJob job(cluster(), "closed");
    job.behave("0", "exec 1>&-\necho 'stdout closed' >&2\nready\nawait go\n"
                    "echo 'still here' >&2\nexit 0\n");
    job.behave("1", "echo 'node 2 out'\nready\nawait go\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2");
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    EXPECT_TRUE(eventually([&] { return has_line(job.err(), "node1: stdout closed"); }, 30s))
        << job.err();
    EXPECT_TRUE(eventually([&] { return has_line(job.out(), "node2: node 2 out"); }, 30s))
        << job.out();
    EXPECT_FALSE(launcher->wait(0ms).has_value()) << "the launcher ended before its nodes did\n"
                                                  << job.err();
    job.release("go");
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    EXPECT_EQ(job.out(), "node2: node 2 out\n");
    EXPECT_EQ(job.err(), "node1: stdout closed\nnode1: still here\n" +
                             summary_block({"node1: success", "node2: success"}));
    job.expect_none_left(10s);
}

} // namespace
} // namespace colossalai::test
