// The relay that carries a task's output through a step's launcher process (srun, mpirun): its
// frames decoded, and the program run by a real perl over every kind of byte a job writes (issue
// #24: `\r\n`, `\r` bars, NUL, invalid UTF-8, long lines, no final newline), every frame with
// its node's rank.

#include "../task_markers.hpp"
#include "files.hpp"
#include "process.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/step/relay.hpp"
#include "colossalai/step/task_lines.hpp"
#include "colossalai/util/quote.hpp"
#include "colossalai/util/signal_name.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

namespace colossalai::step {
namespace {

using test::rs;

FrameBytes out(const std::string& bytes) {
    return {output::Stream::out, bytes};
}

TEST(DecodeFrame, TheJobsBytesWithTheirLineEndOrNone) {
    EXPECT_EQ(decode_frame("loss 0.25" + rs + "n"), out("loss 0.25\n"));
    EXPECT_EQ(decode_frame("50%\r" + rs + "p"), out("50%\r"));
    EXPECT_EQ(decode_frame("a\r" + rs + "n"), out("a\r\n"));
    EXPECT_EQ(decode_frame(rs + "n"), out("\n"));
    EXPECT_EQ(decode_frame(rs + "p"), out(""));
    EXPECT_EQ(decode_frame(std::string("n\0l", 3) + rs + "n"), out(std::string("n\0l\n", 4)));
    EXPECT_EQ(decode_frame(rs + rs + "colossalai-task-exit 0" + rs + "n"),
              out(rs + "colossalai-task-exit 0\n")); // a job's RS is its own
    EXPECT_EQ(decode_frame("x" + rs + rs + rs + "p"), out("x" + rs));
}

// `N` and `P`: the same from the job's stderr, whichever of the launcher's streams carried it.
TEST(DecodeFrame, UppercaseEndsAreTheJobsStderr) {
    EXPECT_EQ(decode_frame("warn" + rs + "N"), (FrameBytes{output::Stream::err, "warn\n"}));
    EXPECT_EQ(decode_frame("50%\r" + rs + "P"), (FrameBytes{output::Stream::err, "50%\r"}));
    EXPECT_EQ(decode_frame(rs + rs + rs + "N"), (FrameBytes{output::Stream::err, rs + "\n"}));
}

TEST(DecodeFrame, AnythingElseIsNoFrame) {
    for (const std::string& line :
         {std::string("slurmstepd: error: *** STEP 7.0 ON node1 CANCELLED ***"), std::string(),
          rs + "colossalai-task-exit 0", rs + "colossalai-failed cwd", "x" + rs, "x" + rs + "q",
          "x" + rs + "n" + "y", "x" + rs + rs + "n", "x" + rs + "nn", "x" + rs + "e",
          "x" + rs + "NP"}) {
        EXPECT_FALSE(decode_frame(line)) << line;
    }
}

// What the relay writes on one stream, as the launcher reads it line by line (read_task_line):
// the job's bytes; every line a frame of `rank`'s.
struct Relayed {
    std::string bytes;
    std::size_t longest_line = 0; // with its newline
};

Relayed decode_lines(const std::string& stream, std::size_t rank = 0,
                     output::Stream job_stream = output::Stream::out) {
    Relayed relayed;
    std::size_t begin = 0;
    for (std::size_t end; (end = stream.find('\n', begin)) != std::string::npos; begin = end + 1) {
        relayed.longest_line = std::max(relayed.longest_line, end + 1 - begin);
        TaskLine line = read_task_line(stream.substr(begin, end - begin));
        const auto* frame = std::get_if<Frame>(&line);
        if (frame == nullptr) {
            ADD_FAILURE() << "not a frame: " << stream.substr(begin, end - begin);
            continue;
        }
        EXPECT_EQ(frame->rank, rank);
        EXPECT_EQ(frame->stream, job_stream);
        relayed.bytes += frame->bytes;
    }
    EXPECT_EQ(begin, stream.size()) << "the relay's output ends in a partial line";
    return relayed;
}

test::RunResult relay(const std::vector<std::string>& job, const test::RunOptions& options = {},
                      std::size_t rank = 0, RelayChannel channel = RelayChannel::own_streams) {
    std::vector<std::string> argv = {"perl", "-e", std::string(relay_program()),
                                     std::to_string(rank), std::string(relay_argument(channel))};
    argv.insert(argv.end(), job.begin(), job.end());
    return test::run(argv, options);
}

std::string tricky_bytes() {
    std::string bytes = "epoch 1 loss\r\n"
                        "bar 1%\rbar 2%\rbar done\n" +
                        std::string("nul\0byte\n", 9) + "bad \xff\xfe utf-8\n" + rs +
                        "colossalai-task-exit 0\n" + rs + rs + "\n";
    // (append, not `+`: GCC 12's -Warray-bounds misreads the temporary in a Release build.)
    bytes.append(3000, 'L').append("\n");   // longer than a Slurm message
    bytes.append(1100, 'M').append("\r\n"); // longer than a frame, ending in \r\n
    for (int i = 0; i < 256; ++i) {
        bytes += static_cast<char>(i);
    }
    bytes.append(600, '\x1e').append("\n"); // a frame of RS bytes only, each doubled
    return bytes + "no final newline";
}

TEST(Relay, EveryByteOfBothStreamsArrivesInFramesThatSlurmPassesWhole) {
    test::TempDir dir;
    std::string bytes = tricky_bytes();
    dir.write("out", bytes);
    dir.write("err", bytes + "\r");
    test::RunOptions options;
    options.cwd = dir.path();
    test::RunResult result =
        relay({"sh", "-c", "cat out; cat err >&2; exit 3"}, options, 123456789);
    EXPECT_EQ(result.exit_code, 3) << test::describe(result);
    Relayed out = decode_lines(result.out, 123456789);
    Relayed err = decode_lines(result.err, 123456789, output::Stream::err);
    EXPECT_EQ(out.bytes, bytes);
    EXPECT_EQ(err.bytes, bytes + "\r");
    // slurmstepd cuts a line of more than 1023 bytes (its newline included) and ends each piece
    // with a newline of its own: 500 RS bytes doubled, with a rank of 9 digits, stay under it.
    EXPECT_LE(out.longest_line, 1023u);
    EXPECT_LE(err.longest_line, 1023u);
}

// mpirun's channel: every frame of both streams on stderr, each one packet of a pipe there, so
// that each read of the daemon's (Open MPI's orted reads 4096 bytes) returns one whole frame,
// however long the reader waited and however much the job wrote (a burst of 200 KiB, a line of
// 100 KiB). The reader starts once the job has ended: the pipe is full of packets by then.
TEST(Relay, PacketsPutEveryFrameOnStderrEachReadOneWholeFrame) {
    test::TempDir dir;
    std::string bytes = tricky_bytes();
    bytes.append(100 * 1024, 'W').append("\n");
    while (bytes.size() < 200 * 1024) {
        bytes += "line \x1e\r\n";
    }
    dir.write("out", bytes);
    dir.write("err", "warning: " + bytes);
    // The reader prints each read as LENGTH, a colon, the bytes.
    dir.write("read.pl",
              "sleep 1; while (my $n = sysread(STDIN, my $b, 4096)) { print \"$n:$b\" }");
    test::RunOptions options;
    options.cwd = dir.path();
    std::string relay_words =
        util::shell_join({"perl", "-e", std::string(relay_program()), "7",
                          std::string(relay_argument(RelayChannel::stderr_packets))});
    test::RunResult result =
        test::run({"sh", "-c",
                   "{ " + relay_words +
                       " sh -c 'cat out; cat err >&2; exit 5'; echo \"status $?\" >&3; } "
                       "3>status 2>&1 >/dev/null | perl read.pl"},
                  options);
    ASSERT_EQ(result.exit_code, 0) << test::describe(result).substr(0, 2000);
    EXPECT_EQ(test::read_file(dir / "status"), "status 5\n");
    std::string out_bytes, err_bytes;
    std::size_t reads = 0;
    for (std::size_t at = 0; at < result.out.size(); ++reads) {
        std::size_t colon = result.out.find(':', at);
        ASSERT_NE(colon, std::string::npos);
        std::size_t length = std::stoul(result.out.substr(at, colon - at));
        std::string read = result.out.substr(colon + 1, length);
        at = colon + 1 + length;
        ASSERT_EQ(read.size(), length);
        // One whole frame: one line, of rank 7.
        ASSERT_EQ(read.find('\n'), length - 1) << reads << ": " << read.substr(0, 200);
        TaskLine line = read_task_line(std::string_view(read).substr(0, length - 1));
        const auto* frame = std::get_if<Frame>(&line);
        ASSERT_NE(frame, nullptr) << read.substr(0, 200);
        EXPECT_EQ(frame->rank, 7u);
        (frame->stream == output::Stream::out ? out_bytes : err_bytes) += frame->bytes;
    }
    EXPECT_GT(reads, 800u);
    EXPECT_TRUE(out_bytes == bytes) << out_bytes.size();
    EXPECT_TRUE(err_bytes == "warning: " + bytes) << err_bytes.size();
}

TEST(Relay, ExitsWithTheJobsStatusAsShReportsIt) {
    EXPECT_EQ(relay({"sh", "-c", "exit 7"}).exit_code, 7);
    EXPECT_EQ(relay({"true"}).exit_code, 0);
    EXPECT_EQ(relay({"sh", "-c", "kill -KILL $$"}).exit_code, 137);
    test::RunResult missing = relay({"colossalai-no-such-program"});
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_NE(
        decode_lines(missing.err, 0, output::Stream::err).bytes.find("colossalai-no-such-program"),
        std::string::npos);
}

// Slurm delivers a step's signal to every process of the step (scancel --signal): the relay
// ignores it and passes on the job's last words, the job gets it at its default disposition,
// even though the relay itself ignores it.
TEST(Relay, TheJobGetsTheStopSignalsTheRelayOutlivesThem) {
    // The test's child leads its own process group: `kill 0` reaches the relay and the job.
    test::RunResult handled =
        relay({"sh", "-c",
               "trap 'echo checkpoint written; exit 0' TERM; kill -TERM 0; sleep 5; echo late"});
    EXPECT_EQ(handled.exit_code, 0) << test::describe(handled);
    EXPECT_EQ(decode_lines(handled.out).bytes, "checkpoint written\n");
    for (int signo : exec::signal_policy::delivered_to_slurm_steps) {
        std::string signal(util::short_signal_name(signo).value());
        test::RunResult killed = relay({"sh", "-c", "kill -" + signal + " $$; exit 0"});
        EXPECT_EQ(killed.exit_code, 128 + signo) << signal << ": " << test::describe(killed);
    }
}

// A stop sent to the task's process group as the relay starts, before its job exists, reached
// the relay alone: the relay passes it on to the job once forked, which ends at once. (The relay
// here starts with SIGTERM blocked and pending, as one that came during its start finds it.)
TEST(Relay, PassesOnAStopThatCameBeforeItsJob) {
    std::vector<std::string> argv = {
        "perl",
        "-MPOSIX",
        "-e",
        "sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGTERM)); kill TERM => $$; "
        "exec { 'perl' } 'perl', '-e', @ARGV",
        std::string(relay_program()),
        "0",
        "streams",
        "sh",
        "-c",
        "echo started"};
    test::RunResult result = test::run(argv);
    EXPECT_EQ(result.exit_code, 128 + SIGTERM) << test::describe(result);
    EXPECT_EQ(decode_lines(result.out).bytes, "");
}

// The relay ignores exactly the signals that Slurm delivers to a step, as the policy lists them
// (and the task's wrapper traps: SrunTaskScript.TrapsWhatSlurmDeliversToTheStep).
TEST(Relay, IgnoresWhatSlurmDeliversToTheStep) {
    const std::string line = "\nmy @stop = qw(INT TERM HUP QUIT USR1 USR2 ALRM);\n";
    EXPECT_EQ(line, "\nmy @stop = qw(" +
                        exec::signal_policy::short_names(
                            exec::signal_policy::delivered_to_slurm_steps, " ") +
                        ");\n");
    EXPECT_NE(std::string(relay_program()).find(line), std::string::npos) << relay_program();
}

} // namespace
} // namespace colossalai::step
