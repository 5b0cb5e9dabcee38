// The states of a node reached through the ssh program (`--ssh-client openssh`), driven as the
// launcher's loop does, with a fake `ssh` in its place: a script that runs the remote command
// (its last argument) here, so that the real node wrapper reads its script, answers, waits for
// `go` and relays control lines; or one that fails as ssh does. No sshd, no network.

#include "../recording_output.hpp"
#include "files.hpp"

#include "colossalai/ssh/openssh_transport.hpp"
#include "colossalai/ssh/remote_command.hpp"

#include <gtest/gtest.h>

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>

namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using job::Outcome;
using test::RecordingOutput;

class OpensshSession : public ::testing::Test {
protected:
    // As in the launcher (exec::SignalChannel): a write to an ssh that has ended fails with EPIPE.
    void SetUp() override { m_sigpipe = std::signal(SIGPIPE, SIG_IGN); }
    void TearDown() override { std::signal(SIGPIPE, m_sigpipe); }

    // A fake ssh whose body is `script` (sh; "$last" is the remote command).
    std::unique_ptr<job::Process> start(const std::string& script,
                                        const std::vector<std::string>& argv) {
        std::filesystem::path fake =
            m_dir.write("ssh", "#!/bin/sh\nfor last; do :; done\n" + script, 0755);
        SshSettings settings = m_settings;
        // The machine's ~/.ssh/config never reaches a unit test.
        settings.connect.read_config = [](const ConfigTarget&) { return ClientConfig{}; };
        m_transport.emplace(settings, std::vector<std::string>{"PATH=/usr/bin:/bin"},
                            fake.string());
        job::NodeCommand command;
        command.host = command.address = "node1";
        command.argv = argv;
        command.working_directory = m_dir.path().string();
        return m_transport->start(command, m_output);
    }

    // Runs the remote command here, as sshd would through the login shell.
    std::unique_ptr<job::Process> start_job(const std::vector<std::string>& argv) {
        return start("exec /bin/sh -c \"$last\"\n", argv);
    }

    // Drives `process` as the loop does until `done` holds or it has a result: poll() waits no
    // longer than the process's deadline (its heartbeat, its answer's timeout).
    template <typename Done>
    void drive(job::Process& process, Done done) {
        while (!done() && !process.result()) {
            std::vector<pollfd> fds;
            process.collect_fds(fds);
            std::chrono::milliseconds wait = 1000ms;
            if (std::optional<job::Clock::time_point> deadline = process.deadline()) {
                wait = std::clamp(
                    std::chrono::ceil<std::chrono::milliseconds>(*deadline - job::Clock::now()),
                    0ms, 1000ms);
            }
            ASSERT_GE(::poll(fds.data(), fds.size(), static_cast<int>(wait.count())), 0);
            process.process_events(fds);
        }
    }

    // Passes the checks, starts the job and reads until it printed `ready` (and nothing else).
    void run_until_ready_line(job::Process& process) {
        drive(process, [&] { return process.ready(); });
        process.go();
        drive(process, [&] { return m_output.out == "ready\n"; });
    }

    Outcome finish(job::Process& process) {
        drive(process, [] { return false; });
        return process.result().value_or(Outcome::exited(-1));
    }

    bool exists(const std::string& name) const { return std::filesystem::exists(m_dir / name); }

    test::TempDir m_dir{"colossalai-openssh-test"};
    RecordingOutput m_output;
    SshSettings m_settings = ssh_settings(30s, 10s);
    std::optional<OpenSshTransport> m_transport;
    void (*m_sigpipe)(int) = SIG_DFL;
};

TEST_F(OpensshSession, TheJobStartsOnlyAtGoAndEndsWithItsOutputAndExitCode) {
    auto process = start_job({"sh", "-c", ": > started; echo out; echo err >&2; exit 3"});
    drive(*process, [&] { return process->ready(); });
    ASSERT_FALSE(process->result()) << m_output.err;
    EXPECT_FALSE(exists("started")); // the wrapper waits for `go`
    process->go();
    EXPECT_EQ(finish(*process), Outcome::exited(3));
    EXPECT_TRUE(exists("started"));
    EXPECT_EQ(m_output.out, "out\n");
    EXPECT_EQ(m_output.err, "err\n");
    EXPECT_EQ(m_output.out_closed, 1);
    EXPECT_EQ(m_output.err_closed, 1);
}

// COLOSSALAI_TIMING: a host whose job ran has every phase (ssh's connect, host key check and
// login are one, the last two of 0 ms), as over libssh.
TEST_F(OpensshSession, TimingHasEveryPhaseOfAHostWhoseJobRan) {
    auto process = start_job({"sh", "-c", "echo out"});
    drive(*process, [&] { return process->ready(); });
    process->go();
    EXPECT_EQ(finish(*process), Outcome::exited(0));
    std::string report = m_transport->timing_report();
    EXPECT_EQ(report.rfind("colossalai: timing of 1 SSH hosts", 0), 0u) << report;
    EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 11) << report;
    EXPECT_EQ(std::count(report.begin(), report.end(), '-'), 0) << report; // no phase missing
}

TEST_F(OpensshSession, AStopBeforeGoEndsNotStartedAndStartsNothing) {
    auto process = start_job({"sh", "-c", ": > started"});
    drive(*process, [&] { return process->ready(); });
    ASSERT_FALSE(process->result()) << m_output.err;
    process->stop(SIGTERM);
    EXPECT_EQ(process->result(), Outcome::not_started());
    process->go(); // too late: nothing starts
    EXPECT_EQ(process->result(), Outcome::not_started());
    EXPECT_FALSE(exists("started"));
    EXPECT_EQ(m_output.out_closed, 1);
    EXPECT_EQ(m_output.err_closed, 1);
}

TEST_F(OpensshSession, AStopWhileRunningGivesTheJobTheSignalAndItsHandlerDecides) {
    auto process = start_job(
        {"sh", "-c", "trap 'echo got TERM; exit 0' TERM; echo ready; while :; do sleep 0.1; done"});
    run_until_ready_line(*process);
    process->stop(SIGTERM);
    EXPECT_EQ(finish(*process), Outcome::exited(0));
    EXPECT_EQ(m_output.out, "ready\ngot TERM\n");
}

TEST_F(OpensshSession, AJobKilledByTheRelayedSignalIsKilledByIt) {
    auto process = start_job({"sh", "-c", "echo ready; exec sleep 30"});
    run_until_ready_line(*process);
    process->stop(SIGTERM);
    EXPECT_EQ(finish(*process), Outcome::killed(SIGTERM));
}

TEST_F(OpensshSession, KillEndsAJobThatIgnoresTheStop) {
    auto process = start_job({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"});
    run_until_ready_line(*process);
    process->stop(SIGTERM);
    process->kill();
    EXPECT_EQ(finish(*process), Outcome::killed(SIGKILL));
}

TEST_F(OpensshSession, AbandonKillsSshAndGivesUp) {
    auto process = start_job({"sh", "-c", "echo ready; exec sleep 30"});
    run_until_ready_line(*process);
    process->abandon();
    EXPECT_EQ(process->result(), Outcome::abandoned("did not end after SIGKILL; ssh killed"));
}

// The wrapper stops a job whose launcher stays silent for its silence limit: the heartbeat lines
// keep a job that outlives that limit running to its end.
TEST_F(OpensshSession, HeartbeatsKeepAJobRunningPastTheSilenceLimit) {
    m_settings.silence_limit = 1s;
    m_settings.heartbeat = 100ms;
    auto process = start_job({"sh", "-c", "sleep 3; echo done"});
    drive(*process, [&] { return process->ready(); });
    process->go();
    EXPECT_EQ(finish(*process), Outcome::exited(0));
    EXPECT_EQ(m_output.out, "done\n");
}

// ssh's exit status is 255 for a job that exited 255 and for a connection lost: the wrapper's exit
// line, taken off the job's stdout, tells them apart.
TEST_F(OpensshSession, AJobThatExits255IsExitCode255) {
    auto process = start_job({"sh", "-c", "echo out; printf 'no newline'; exit 255"});
    drive(*process, [&] { return process->ready(); });
    process->go();
    EXPECT_EQ(finish(*process), Outcome::exited(255));
    EXPECT_EQ(m_output.out, "out\nno newline");
    EXPECT_EQ(m_output.out_closed, 1);
}

// A connection lost while the job runs: ssh ends (255) with no exit line; its last message (CR LF
// ended, as all of ssh's) is the reason, as libssh's error is over libssh.
TEST_F(OpensshSession, AConnectionLostWhileTheJobRunsIsConnectionLost) {
    struct Case {
        std::string ssh_says;
        std::string reason;
    };
    for (const Case& c :
         {Case{"Connection to node1 closed by remote host.\\r\\n",
               "connection lost: Connection to node1 closed by remote host."},
          Case{"", "connection lost: ssh ended (exit status 255) before the node's job did"},
          Case{"a line of the job\\n",
               "connection lost: ssh ended (exit status 255) before the node's job did"}}) {
        SCOPED_TRACE(c.reason);
        m_output.out.clear();
        m_output.err.clear();
        m_output.out_closed = m_output.err_closed = 0;
        // ssh answers as the wrapper would, waits for `go`, and the connection drops.
        auto process = start("printf '\\036colossalai-started\\n\\036colossalai-ready\\n'\n"
                             "while IFS= read -r line && [ \"$line\" != go ]; do :; done\n"
                             "echo ready; printf '" +
                                 c.ssh_says + "' >&2; exit 255\n",
                             {"true"});
        run_until_ready_line(*process);
        Outcome outcome = finish(*process);
        EXPECT_EQ(outcome, Outcome::connection_lost(c.reason)) << outcome.reason();
        EXPECT_EQ(m_output.out, "ready\n");
        EXPECT_EQ(m_output.out_closed, 1);
        EXPECT_EQ(m_output.err_closed, 1);
    }
}

// The wrapper stopped the job when the launcher fell silent (its exit line says so): as over
// libssh, the node stopped it, not the job failed.
TEST_F(OpensshSession, AJobStoppedByTheSilenceLimitSaysSo) {
    m_settings.silence_limit = 1s;
    m_settings.heartbeat = 30s; // no heartbeat reaches the wrapper in time
    auto process = start_job({"sh", "-c", "echo ready; exec sleep 30"});
    run_until_ready_line(*process);
    EXPECT_EQ(finish(*process), stopped_by_silence(1s));
    EXPECT_EQ(m_output.out, "ready\n");
}

// ssh that ends before the job starts: its own failure (exit status 255 before the wrapper
// started), or a connection that drops once the node answered ready, before go(). Its last line
// is the reason, nothing started, and go() starts nothing; however the answer and ssh's end are
// seen, in one pass or two.
TEST_F(OpensshSession, SshEndingBeforeTheJobIsAFailureWithItsLastLine) {
    struct Case {
        std::string before; // what ssh printed on stdout first
        std::string last;   // its last line on stderr
        std::string reason;
    };
    for (const Case& c :
         {Case{"", "ssh: connect to host node1 port 22: Connection refused",
               "ssh: connect to host node1 port 22: Connection refused"},
          Case{"\\036colossalai-started\\n\\036colossalai-ready\\n",
               "Connection to node1 closed by remote host.",
               "connection lost during the preflight checks: Connection to node1 closed by "
               "remote host."}}) {
        SCOPED_TRACE(c.reason);
        auto process = start("printf '" + c.before + "'\necho 'debug1: trying' >&2\necho '" +
                                 c.last + "' >&2\nexit 255\n",
                             {"true"});
        EXPECT_EQ(finish(*process), Outcome::connect_failed(c.reason));
        process->go();
        EXPECT_EQ(m_output.out, "");
        EXPECT_EQ(m_output.err, "");
    }
}

// A login shell that runs no command (nologin) reads as it does over libssh.
TEST_F(OpensshSession, ALoginShellThatRunsNothingSaysSo) {
    auto process = start("echo 'This account is currently not available.'\nexit 1\n", {"true"});
    Outcome outcome = finish(*process);
    EXPECT_EQ(outcome.kind(), Outcome::Kind::connect_failed);
    EXPECT_NE(outcome.reason().find("This account is currently not available."), std::string::npos)
        << outcome.reason();
}

} // namespace
} // namespace colossalai::ssh
