// Odd output streams of a node over SSH: a 1 MiB line without a final newline, and a node that
// closes its stdout but runs on, printing on stderr. Figures in docs/reliability.md ("Faults,
// measured", over SSH).

#include "run_ssh_faults_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshOddStreams : public SharedSshCluster<2> {};

// node1 prints one line of 1 MiB (512 KiB of x, then 512 KiB of y) and no newline; node2 prints a
// short line while node1's line is being written. node1's line arrives whole with its prefix once
// and gets its newline when its stream closes; node2's line waits for it (node1 holds the stream
// once its line outgrows the buffer), and the summary follows on stderr, on lines of its own.
TEST_F(SshOddStreams, AMebibyteLineWithoutNewlineArrivesWholeThenTheSummary) {
    const size_t half = 512 * 1024;
    FaultJob job(cluster(), "longline");
    job.behave("0", "head -c " + std::to_string(half) + " /dev/zero | tr '\\0' x\n" +
                        "await rest\n" + "head -c " + std::to_string(half) +
                        " /dev/zero | tr '\\0' y\n");
    job.behave("1", "await short\necho 'node 2 line'\nready\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2");
    // The first half is on its way out: node1 holds stdout.
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
    job.release("rest");
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    std::string out = job.out();
    const std::string expected =
        "node1: " + std::string(half, 'x') + std::string(half, 'y') + "\nnode2: node 2 line\n";
    EXPECT_EQ(out.size(), expected.size());
    EXPECT_TRUE(out == expected) << "stdout differs; its first 100 bytes: " << out.substr(0, 100)
                                 << "\nits last 100 bytes: "
                                 << out.substr(out.size() > 100 ? out.size() - 100 : 0);
    EXPECT_EQ(job.err(), summary_block({"node1: success", "node2: success"}));
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
