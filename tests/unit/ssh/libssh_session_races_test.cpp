// The races CI found in the SSH state machine, made deterministic by the fake libssh: the last
// packets taken in while another stream was polled, a write refused once the node closed the
// channel, and POLLOUT asked for with nothing that can be written.

#include "fake_node.hpp"

#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::ssh::fake {
namespace {

using output::Stream;

// Polling stdout takes in stderr's data; polling stderr then takes in stdout's last data, the
// channel's end and the exit status. The socket announces none of it any more.
void send_the_end_behind_stderr(FakeNode& node) {
    node.libssh.arrive({err("e\n")});
    node.libssh.arrive({out("last\n"), eof(), exit_status(0), close()});
}

TEST(SshLostLastPacket, OnePassDeliversWhatLibsshTookInForTheOtherStream) {
    FakeNode node;
    node.start_running();
    send_the_end_behind_stderr(node);
    node.process->process_events(node.wanted()); // woken once, by the socket
    EXPECT_EQ(node.libssh.batches_waiting(), 0u);
    EXPECT_EQ(node.output.text(Stream::err), "e\n");
    EXPECT_EQ(node.output.text(Stream::out), "last\n");
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::exited(0));
}

TEST(SshLostLastPacket, TheLoopEndsTheJobWithoutAnotherWakeUp) {
    FakeNode node;
    node.start_running();
    send_the_end_behind_stderr(node);
    ASSERT_TRUE(node.settle()); // the clock stands still: no heartbeat comes to the rescue
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.output.text(Stream::out), "last\n");
    EXPECT_EQ(node.outcome(), job::Outcome::exited(0));
}

TEST(SshBackpressure, DataHeldWhilePausedIsReadOnceAcceptedWithoutAWakeUp) {
    FakeNode node;
    node.start_running();
    node.output.set_accepting(Stream::out, false);
    node.libssh.arrive({out("held\n"), err("e\n")});
    EXPECT_EQ(node.events() & POLLIN, 0); // a paused stream: the socket is not read
    TestClock::advance(1000ms);
    ASSERT_TRUE(node.settle()); // the heartbeat's write takes the batch in
    EXPECT_EQ(node.libssh.batches_waiting(), 0u);
    EXPECT_EQ(node.output.text(Stream::err), "e\n");
    EXPECT_EQ(node.output.text(Stream::out), "");
    node.output.set_accepting(Stream::out, true);
    ASSERT_TRUE(node.settle()); // no fd says so: the process has work
    EXPECT_EQ(node.output.text(Stream::out), "held\n");
}

// stdout paused (a full pager); the node's last output, its end and exit status arrive; the
// heartbeat's write takes them in and is refused on the closed channel.
void close_while_paused(FakeNode& node) {
    node.start_running();
    node.output.set_accepting(Stream::out, false);
    node.libssh.arrive({out("tail\n"), eof(), exit_status(3), close()});
    ASSERT_TRUE(node.settle());
    ASSERT_EQ(node.libssh.batches_waiting(), 1u); // paused: the socket is not read
    TestClock::advance(1000ms);
    ASSERT_TRUE(node.settle()); // the heartbeat is due
    ASSERT_EQ(node.libssh.batches_waiting(), 0u);
    ASSERT_EQ(node.written_after_go(), ""); // refused
}

TEST(SshWriteRefused, AfterTheNodeClosedTheOutputIsReadToItsLastByte) {
    FakeNode node;
    close_while_paused(node);
    ASSERT_FALSE(node.ended()) << node.said();
    node.output.set_accepting(Stream::out, true);
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.output.text(Stream::out), "tail\n");
    EXPECT_EQ(node.outcome(), job::Outcome::exited(3));
}

TEST(SshWriteRefused, NoHeartbeatAfterTheNodeClosed) {
    FakeNode node;
    close_while_paused(node);
    EXPECT_FALSE(node.process->deadline());
    TestClock::advance(10s);
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.ended());
}

// The launcher was stopped (Ctrl-Z, SIGSTOP) while its node printed, ended and closed the
// channel. On `fg` the heartbeat and the keepalive are due: the keepalive's request takes in
// everything at once, then the heartbeat's write is refused on the closed channel, while every
// byte of the output still waits in libssh (ssh_channel_is_eof says 0). That refusal used to
// end the node with its exit status at once, its output unread (issue #22: 0 of 16 lines, and
// "success").
TEST(SshStoppedLauncher, OutputTakenInWithTheCloseAfterAStopIsReadToItsLastByte) {
    FakeNode node;
    node.start_running();
    std::string out_text;
    for (int line = 1; line <= 16; ++line) {
        out_text += "line " + std::to_string(line) + "\n";
    }
    node.libssh.arrive(
        {out(out_text), err("warning 1\nwarning 2\n"), eof(), exit_status(0), close()});
    TestClock::advance(10s); // stopped past the heartbeat and the keepalive interval
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.libssh.keepalives_sent(), 1); // what took the batch in
    EXPECT_EQ(node.written_after_go(), "");      // the heartbeat, refused
    EXPECT_EQ(node.output.text(Stream::out), out_text);
    EXPECT_EQ(node.output.text(Stream::err), "warning 1\nwarning 2\n");
    EXPECT_TRUE(node.output.closed(Stream::out) && node.output.closed(Stream::err));
    EXPECT_EQ(node.outcome(), job::Outcome::exited(0));
}

// The same with the output paused when the launcher resumes (a pager on a page): the node is
// not ended before its output was read, however long that takes.
TEST(SshStoppedLauncher, OutputTakenInWithTheCloseWaitsForAPausedReader) {
    FakeNode node;
    node.start_running();
    node.output.set_accepting(Stream::out, false);
    node.libssh.arrive({out("held\n"), err("e\n"), eof(), exit_status(4), close()});
    TestClock::advance(10s);
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.libssh.batches_waiting(), 0u);
    ASSERT_FALSE(node.ended()) << node.said();
    EXPECT_EQ(node.output.text(Stream::err), "e\n");
    node.output.set_accepting(Stream::out, true);
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.output.text(Stream::out), "held\n");
    EXPECT_EQ(node.outcome(), job::Outcome::exited(4));
}

TEST(SshPollOut, NotAskedForWithNothingToWrite) {
    FakeNode node;
    node.start_running();
    EXPECT_EQ(node.events() & POLLOUT, 0);
    node.process->stop(SIGTERM); // written at once
    EXPECT_EQ(node.events() & POLLOUT, 0);
    ASSERT_TRUE(node.settle());
}

// A paused pager: nothing is read, and the heartbeats go out whole. libssh's own poll flags
// still ask for POLLOUT after such a write (until libssh polls, which it does while reading), so
// a process that followed them had the loop spin on an always-writable socket (issue #22).
TEST(SshPollOut, NotAskedForAfterAHeartbeatWhileTheOutputIsPaused) {
    FakeNode node;
    node.start_running();
    node.output.set_accepting(Stream::out, false);
    node.output.set_accepting(Stream::err, false);
    for (int beat = 1; beat <= 3; ++beat) {
        TestClock::advance(1000ms);
        node.tick();
        EXPECT_EQ(node.written_after_go(), std::string(static_cast<size_t>(beat), '\n'));
        EXPECT_EQ(node.events(), 0) << "poll() would wake at once for the socket";
        EXPECT_TRUE(node.settle()) << "the loop spins";
    }
    EXPECT_FALSE(node.ended()) << node.said();
}

TEST(SshPollOut, AskedForWhileAControlLineWaitsForTheWindow) {
    FakeNode node;
    node.start_running();
    node.libssh.block_writes(true);
    node.process->stop(SIGTERM);
    EXPECT_NE(node.events() & POLLOUT, 0);
    node.libssh.block_writes(false);
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.written_after_go(), control_line(SIGTERM).value());
    EXPECT_EQ(node.events() & POLLOUT, 0);
}

TEST(SshPollOut, AControlLineAfterTheNodeClosedIsDroppedNotSpunOn) {
    FakeNode node;
    close_while_paused(node);
    node.process->stop(SIGTERM); // e.g. the user's Ctrl-C while the output is paused
    EXPECT_EQ(node.events() & POLLOUT, 0);
    EXPECT_TRUE(node.settle()) << "the loop spins on POLLOUT";
    EXPECT_FALSE(node.ended());
    EXPECT_EQ(node.written_after_go(), "");
}

} // namespace
} // namespace colossalai::ssh::fake
