// A node's job over SSH from connect to its end, through the fake libssh: connect, the node
// wrapper's preflight answer, go, both streams, the node's close with an exit status or signal, and
// the ways it fails.

#include "fake_node.hpp"

#include "colossalai/job/preflight.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::ssh::fake {
namespace {

using output::Stream;

TEST(LibsshSessionLifecycle, ReadyOnceTheWrapperPassedItsChecksThenWaitsForGo) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    node.await_worker(); // the worker hands the session over once the wrapper is started
    EXPECT_EQ(node.libssh.command(), remote); // the wrapper runs its checks before go
    EXPECT_FALSE(node.process->ready());      // no answer yet
    node.libssh.arrive({out(ready_answer)});
    ASSERT_TRUE(node.settle()); // the launcher's loop reads the answer
    EXPECT_TRUE(node.process->ready());
    EXPECT_FALSE(node.ended());
    EXPECT_TRUE(node.wanted().empty());            // nothing to wait for until go()
    EXPECT_EQ(node.libssh.written(), environment); // no go line: the job is not started
    EXPECT_EQ(node.libssh.timeout_seconds(), 7);   // --ssh-timeout reaches libssh's connect
}

TEST(LibsshSessionLifecycle, TheWorkerIsFreeWhileTheWrapperRunsItsChecks) {
    // The answer is awaited on the session's socket in the launcher's loop, not on the worker:
    // the worker connects the next host meanwhile (fan-out latency, bench/fanout.sh).
    Script script;
    script.answer.reset();
    FakeNode node(script);
    node.await_worker();
    node.await_idle_worker(); // would time out if the worker still waited for the answer
    ASSERT_EQ(node.wanted().size(), 1u);
    EXPECT_EQ(node.wanted()[0].fd, node.libssh.fd());
    EXPECT_EQ(node.events(), POLLIN);
    EXPECT_FALSE(node.process->ready());
    node.libssh.arrive({out(ready_answer)});
    ASSERT_TRUE(node.settle());
    EXPECT_TRUE(node.process->ready());
    EXPECT_FALSE(node.ended()) << node.said();
}

TEST(LibsshSessionLifecycle, AnAnswerSplitAcrossPacketsIsReadWhole) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    node.await_worker();
    node.libssh.arrive({out(ready_answer.substr(0, 5))});
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.process->ready());
    node.libssh.arrive({out(ready_answer.substr(5))});
    ASSERT_TRUE(node.settle());
    EXPECT_TRUE(node.process->ready());
    EXPECT_FALSE(node.ended()) << node.said();
}

TEST(LibsshSessionLifecycle, GoSendsTheGoLineAfterTheEnvironment) {
    FakeNode node;
    node.start_running();
    EXPECT_EQ(node.libssh.command(), remote);
    EXPECT_EQ(node.libssh.written(), environment + std::string(go_line));
    EXPECT_EQ(node.events(), POLLIN); // nothing to write: no POLLOUT
}

TEST(LibsshSessionLifecycle, LinesBeforeTheAnswerAreSkipped) {
    // A start-up file's banner: neither the answer nor the job's output (it has not started).
    Script script;
    script.answer = "banner\n" + ready_answer;
    FakeNode node(script);
    node.start_running();
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.ended()) << node.said();
    EXPECT_EQ(node.output.text(Stream::out), "");
}

TEST(LibsshSessionLifecycle, BothStreamsThenTheExitStatus) {
    FakeNode node;
    node.start_running();
    node.libssh.arrive({out("hello\n")});
    node.libssh.arrive({err("warning\n"), out("world\n")});
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.ended());
    EXPECT_EQ(node.output.text(Stream::out), "hello\nworld\n");
    EXPECT_EQ(node.output.text(Stream::err), "warning\n");

    node.libssh.arrive({eof(), exit_status(3), close()});
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::exited(3));
    EXPECT_TRUE(node.output.closed(Stream::out));
    EXPECT_TRUE(node.output.closed(Stream::err));
    EXPECT_TRUE(node.libssh.freed());
}

TEST(LibsshSessionLifecycle, ExitBySignal) {
    FakeNode node;
    node.start_running();
    node.libssh.arrive({out("bye\n"), exit_signal("TERM"), eof(), close()});
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::killed(SIGTERM));
    EXPECT_EQ(node.output.text(Stream::out), "bye\n");
}

TEST(LibsshSessionLifecycle, CloseWithoutAnExitStatusIsAnError) {
    FakeNode node;
    node.start_running();
    node.libssh.arrive({eof(), close()});
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.outcome(),
              job::Outcome::connection_lost("connection closed without an exit status"));
}

TEST(LibsshSessionLifecycle, ConnectionLostMidRun) {
    FakeNode node;
    node.start_running();
    node.libssh.arrive({out("step 1\n")});
    ASSERT_TRUE(node.settle());
    node.libssh.arrive({reset("Socket error: Connection reset by peer")});
    ASSERT_TRUE(node.settle());
    EXPECT_EQ(node.outcome(), job::Outcome::connection_lost(
                                  "connection lost: Socket error: Connection reset by peer"));
    EXPECT_EQ(node.output.text(Stream::out), "step 1\n");
    EXPECT_TRUE(node.output.closed(Stream::out));
}

TEST(LibsshSessionLifecycle, ConnectionLostAfterTheExitStatusIsTheEnd) {
    // sshd closes right after the exit status: a failed read then is not a lost connection.
    FakeNode node;
    node.start_running();
    node.libssh.arrive({exit_status(0), reset("Socket error: disconnected")});
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::exited(0));
}

// ssh_connect fails with libssh's `error`.
Script connect_fails(std::string error) {
    Script script;
    script.connect_rc = SSH_ERROR;
    script.connect_error = std::move(error);
    return script;
}

TEST(LibsshSessionConnectFailure, RefusedConnection) {
    FakeNode node(connect_fails("Connection refused"));
    node.await_worker();
    EXPECT_TRUE(node.process->ready()); // ended: the launcher stops waiting for it
    EXPECT_EQ(node.outcome(), job::Outcome::connect_failed("connection refused (node1 port 22)"));
}

TEST(LibsshSessionConnectFailure, TimedOut) {
    FakeNode node(connect_fails("Timeout connecting to node1"));
    node.await_worker();
    EXPECT_EQ(node.outcome(),
              job::Outcome::connect_failed("connection timed out after 7 s (node1 port 22)"));
}

TEST(LibsshSessionConnectFailure, UnknownHostKey) {
    Script script;
    script.known = SSH_KNOWN_HOSTS_UNKNOWN;
    FakeNode node(script);
    node.await_worker();
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome()->kind(), job::Outcome::Kind::connect_failed);
    EXPECT_NE(node.reason().find("unknown host node1 port 22"), std::string::npos) << node.said();
    EXPECT_EQ(node.libssh.command(), "");
}

TEST(LibsshSessionConnectFailure, LoginRefused) {
    Script script;
    script.auth_none_rc = SSH_AUTH_DENIED;
    script.auth_auto_rc = SSH_AUTH_DENIED;
    FakeNode node(script);
    node.await_worker();
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome()->kind(), job::Outcome::Kind::connect_failed);
    EXPECT_EQ(node.reason().rfind("authentication failed for tester@node1", 0), 0u) << node.said();
}

TEST(LibsshSessionConnectFailure, CommandRefused) {
    Script script;
    script.exec_rc = SSH_ERROR;
    FakeNode node(script);
    node.await_worker();
    EXPECT_EQ(node.outcome(),
              job::Outcome::connect_failed("cannot start the remote command: exec refused"));
}

TEST(LibsshSessionConnectFailure, WrapperEndedWithoutAnAnswer) {
    Script script;
    script.answer = started_answer;
    FakeNode node(script);
    ASSERT_TRUE(node.libssh.await_wrapper_started());
    node.libssh.arrive({err("sh: 12: Syntax error\n"), eof(), exit_status(2), close()});
    node.await_worker();
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(),
              job::Outcome::connect_failed(
                  "the node wrapper ended before its preflight checks (exit status 2): sh: 12: "
                  "Syntax error (is /bin/sh a POSIX shell there?)"));
}

// A login shell that runs no command (/usr/sbin/nologin) prints its reason and ends: the
// wrapper never said it started. The summary names the login and what it printed, with the exit
// status that came after the end of stdout.
TEST(LibsshSessionConnectFailure, ALoginShellThatRunsNoCommandIsNamedWithWhatItPrinted) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    ASSERT_TRUE(node.libssh.await_wrapper_started());
    node.await_worker();
    node.libssh.arrive({out("This account is currently not available.\n"), eof()});
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.ended()) << "ended before its exit status came: " << node.said();
    node.libssh.arrive({exit_status(1), close()});
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.outcome(), job::Outcome::connect_failed(login_shell_ran_nothing(
                                  "tester", "This account is currently not available.", 1,
                                  "the launcher's command")));
    EXPECT_EQ(node.reason(), "the login shell of tester did not run the launcher's command (exit "
                             "status 1; it printed: This account is currently not available.)");
}

TEST(LibsshSessionConnectFailure, ALoginShellThatRunsNoCommandAndSaysNothing) {
    Script script;
    script.answer.reset();
    FakeNode node(script); // /bin/false
    ASSERT_TRUE(node.libssh.await_wrapper_started());
    node.libssh.arrive({eof(), exit_status(1), close()});
    node.await_worker();
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.reason(), "the login shell of tester did not run the launcher's command (exit "
                             "status 1, nothing printed: a login shell such as /usr/sbin/nologin "
                             "or /bin/false runs no command)");
}

// What it says on stderr is named too (read once the channel's end came: all of it is there),
// with the exit status that comes later.
TEST(LibsshSessionConnectFailure, ALoginShellsStderrAndALateExitStatusAreNamed) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    ASSERT_TRUE(node.libssh.await_wrapper_started());
    node.await_worker();
    node.libssh.arrive({err("fish: Unknown command: /bin/sh\n")});
    node.libssh.arrive({eof()});
    ASSERT_TRUE(node.settle());
    EXPECT_FALSE(node.ended()) << node.said();
    node.libssh.arrive({exit_status(127), close()});
    ASSERT_TRUE(node.settle());
    ASSERT_TRUE(node.ended());
    EXPECT_EQ(node.reason(), "the login shell of tester did not run the launcher's command (exit "
                             "status 127; it printed: fish: Unknown command: /bin/sh)");
}

TEST(LibsshSessionPreflight, NoAnswerWithinTheConnectTimeoutEndsTheNode) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    node.await_worker();
    ASSERT_TRUE(node.process->deadline());
    EXPECT_EQ(*node.process->deadline(), TestClock::now() + 7000ms); // --ssh-timeout
    TestClock::advance(6999ms);
    node.tick();
    EXPECT_FALSE(node.ended()) << node.said();
    TestClock::advance(1ms);
    node.tick();
    EXPECT_EQ(node.outcome(),
              job::Outcome::connect_failed("no answer from the node's preflight checks in 7 s"));
    EXPECT_EQ(node.libssh.written(), environment); // no go line
}

TEST(LibsshSessionPreflight, AFailedCheckEndsTheNodeAsCannotRunWithoutGo) {
    Script script;
    script.answer = "\036colossalai-failed command\n";
    FakeNode node(script);
    node.await_worker();
    EXPECT_TRUE(node.process->ready()); // ended: the launcher stops waiting for it
    EXPECT_EQ(node.outcome(),
              job::Outcome::cannot_run(
                  job::describe(job::PreflightFailure{job::PreflightCheck::command, "torchrun"}),
                  job::preflight_exit_status));
    node.process->go(); // the launcher's fail-fast may still call it: nothing happens
    EXPECT_EQ(node.libssh.written(), environment);
}

TEST(LibsshSessionStop, SignalBeforeGoStartsNothing) {
    FakeNode node;
    node.await_worker();
    node.process->stop(SIGTERM);
    EXPECT_EQ(node.outcome(), job::Outcome::not_started());
    node.process->go(); // the launcher's fail-fast may still call it: nothing happens
    EXPECT_TRUE(node.wanted().empty());
    EXPECT_EQ(node.libssh.written(), environment); // no go line
    node.process.reset();
    EXPECT_TRUE(node.libssh.freed()); // the wrapper reads EOF instead of go: it starts nothing
}

TEST(LibsshSessionStop, SignalWhileTheConnectionWaitsForAWorkerStartsNothing) {
    FakeNode node{WorkerHeld{}};
    node.process->stop(SIGINT);
    EXPECT_EQ(node.outcome(), job::Outcome::not_started());
    node.release_worker();
    node.await_idle_worker();
    EXPECT_EQ(node.libssh.command(), "");
    EXPECT_EQ(node.libssh.written(), "");
}

TEST(LibsshSessionStop, SignalWhileAwaitingThePreflightAnswerStartsNothing) {
    Script script;
    script.answer.reset();
    FakeNode node(script);
    ASSERT_TRUE(node.libssh.await_wrapper_started()); // the wrapper runs its checks
    node.process->stop(SIGTERM);
    EXPECT_EQ(node.outcome(), job::Outcome::not_started());
    node.libssh.arrive({out(ready_answer)}); // the checks pass after all
    node.await_idle_worker();
    node.process->go();
    EXPECT_EQ(node.outcome(), job::Outcome::not_started());
    EXPECT_EQ(node.libssh.written(), environment); // no go line
    node.process.reset();
    EXPECT_TRUE(node.libssh.freed()); // the wrapper reads EOF instead of go: it starts nothing
}

TEST(LibsshSessionStop, LauncherStoppingSendsPause) {
    FakeNode node;
    node.start_running();
    node.process->launcher_stopping();
    EXPECT_EQ(node.written_after_go(), pause_line);
}

TEST(LibsshSessionStop, AbandonWhileRunningClosesTheConnection) {
    FakeNode node;
    node.start_running();
    node.process->abandon();
    EXPECT_EQ(node.outcome(),
              job::Outcome::abandoned("did not end after SIGKILL; connection closed"));
    EXPECT_TRUE(node.libssh.freed());
    EXPECT_TRUE(node.output.closed(Stream::out));
    EXPECT_TRUE(node.output.closed(Stream::err));
    EXPECT_TRUE(node.wanted().empty());
}

TEST(LibsshSessionStop, AbandonWhileConnecting) {
    FakeNode node;
    node.process->abandon();
    EXPECT_EQ(node.outcome(),
              job::Outcome::abandoned("connection not established in time; given up"));
}

} // namespace
} // namespace colossalai::ssh::fake
