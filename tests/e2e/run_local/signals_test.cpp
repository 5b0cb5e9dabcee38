// Signals to a running `colossalai run` with local nodes: SIGINT, SIGTERM and SIGHUP are passed
// to every node's whole process group, a second SIGINT kills at once, and even a SIGKILLed
// launcher leaves no process of the job behind (the guardians and PR_SET_PDEATHSIG).

#include "launch_fixture.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class RunSignals : public RunLaunch {
protected:
    // The launcher's exit status; -1 with a failure when it still runs after 60 s (a hang) or
    // was killed by a signal.
    static int exit_status(Background& launcher) { return exit_code_of(launcher, 60s); }

    bool launcher_said(const std::string& text) const {
        return eventually([&] { return launcher_err().find(text) != std::string::npos; }, 20s);
    }
};

TEST_F(RunSignals, SigintReachesEveryNodesWholeGroupAndNothingIsLeft) {
    two_local_nodes();
    // A background child starts with SIGINT ignored (POSIX sh): the guardian must stop it.
    behave("all", "spawn\nready\ncatch INT\n");
    auto launcher = start_launcher({"--hostfile", "hosts", "--nproc_per_node", "1", "train.py"});
    ASSERT_TRUE(all_wait_for(2) && all_wait_for(2, "catching")) << launcher_err();
    launcher->signal(SIGINT);
    EXPECT_EQ(exit_status(*launcher), 130);
    EXPECT_EQ(launcher_out(), "");
    EXPECT_EQ(
        launcher_err(),
        "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n" +
            summary_block({"localhost: failure (killed by SIGINT, stopped by the launcher)",
                           "127.0.0.1: failure (killed by SIGINT, stopped by the launcher)"}));
    for (int rank : {0, 1}) {
        EXPECT_EQ(read_file(recorded(rank, "caught")), "INT") << "node " << rank;
        expect_job_gone(rank, 3);
    }
    expect_nothing_left();
}

struct SignalCase {
    int signo;
    std::string name;
    int exit_code;
};

TEST_F(RunSignals, SigtermAndSighupArePassedOnAndSetTheExitStatus) {
    const std::vector<SignalCase> cases = {{SIGTERM, "SIGTERM", 143}, {SIGHUP, "SIGHUP", 129}};
    for (const SignalCase& c : cases) {
        SCOPED_TRACE(c.name);
        std::filesystem::remove_all(m_dir / "record");
        std::filesystem::create_directories(m_dir / "record");
        behave("all", "spawn\nready\ncatch " + c.name.substr(3) + "\n");
        auto launcher = start_launcher({"--nproc_per_node", "1", "train.py"});
        ASSERT_TRUE(wait_for(0) && wait_for(0, "catching")) << launcher_err();
        launcher->signal(c.signo);
        EXPECT_EQ(exit_status(*launcher), c.exit_code);
        EXPECT_EQ(launcher_err(), "colossalai: received " + c.name +
                                      "; stopping all nodes (the same signal again kills them at "
                                      "once)\n" +
                                      summary_block({"127.0.0.1: failure (killed by " + c.name +
                                                     ", stopped by the launcher)"}));
        EXPECT_EQ(read_file(recorded(0, "caught")), c.name.substr(3));
        expect_job_gone(0, 3);
        expect_nothing_left();
    }
}

TEST_F(RunSignals, TheLaunchersNoticeStartsOnALineOfItsOwn) {
    behave("all", "printf '\\r 50%%|#####     |' >&2\nspawn\nready\nwait\n");
    auto launcher = start_launcher({"--nproc_per_node", "1", "train.py"});
    ASSERT_TRUE(wait_for(0)) << launcher_err();
    ASSERT_TRUE(launcher_said("#####     |")) << launcher_err(); // the bar came first
    launcher->signal(SIGTERM);
    EXPECT_EQ(exit_status(*launcher), 143);
    EXPECT_EQ(launcher_err(),
              "\r 50%|#####     |\n"
              "colossalai: received SIGTERM; stopping all nodes (the same signal "
              "again kills them at once)\n" +
                  summary_block({"127.0.0.1: failure (killed by SIGTERM, stopped by "
                                 "the launcher)"}));
    expect_job_gone(0, 3);
}

TEST_F(RunSignals, ASecondSigintKillsAtOnce) {
    two_local_nodes();
    behave("all", "trap '' INT\nspawn\nready\nwait\n");
    // A grace far beyond the test's patience: only the second SIGINT can end the job in time.
    auto launcher = start_launcher(
        {"--hostfile", "hosts", "--kill-grace", "600", "--nproc_per_node", "1", "train.py"});
    ASSERT_TRUE(all_wait_for(2)) << launcher_err();
    launcher->signal(SIGINT);
    // Two SIGINTs pending at once would be one: wait until the first one was taken.
    ASSERT_TRUE(launcher_said("received SIGINT;")) << launcher_err();
    launcher->signal(SIGINT);
    EXPECT_EQ(exit_status(*launcher), 130);
    EXPECT_EQ(
        launcher_err(),
        "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n"
        "colossalai: received SIGINT again; killing all nodes\n" +
            summary_block(
                {"localhost: failure (killed by SIGKILL after SIGINT, stopped by the launcher)",
                 "127.0.0.1: failure (killed by SIGKILL after SIGINT, stopped by the launcher)"}));
    expect_job_gone(0, 3);
    expect_job_gone(1, 3);
    expect_nothing_left();
}

// Nothing tells the nodes that the launcher is gone but the kernel: PR_SET_PDEATHSIG (SIGTERM,
// torchrun only) and the EOF on each guardian's pipe (TERM to the whole group, KILL after the
// grace). Node 1 ignores SIGTERM, so only a guardian's SIGKILL can end it.
TEST_F(RunSignals, ASigkilledLauncherLeavesNoProcessOfTheJob) {
    two_local_nodes();
    behave("0", "spawn\nready\nwait\n");
    behave("1", "trap '' TERM\nspawn\nready\nwait\n");
    auto launcher = start_launcher(
        {"--hostfile", "hosts", "--kill-grace", "1", "--nproc_per_node", "1", "train.py"});
    ASSERT_TRUE(all_wait_for(2)) << launcher_err();
    launcher->signal(SIGKILL);
    std::optional<int> status = launcher->wait(20s);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL);
    expect_job_gone(0, 3);
    expect_job_gone(1, 3);
    expect_nothing_left();
}

// Ctrl-Z: the launcher stops like any program, its jobs do not (they run in process groups of
// their own); `fg` (SIGCONT) resumes it and the job's end is collected.
TEST_F(RunSignals, CtrlZStopsTheLauncherWhileTheJobsGoOn) {
    behave("all", "ready\nwhile [ ! -e \"$record/go\" ]; do sleep 0.01; done\necho finished\n");
    auto launcher = start_launcher({"--nproc_per_node", "1", "train.py"});
    ASSERT_TRUE(wait_for(0)) << launcher_err();
    launcher->signal(SIGTSTP);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    pid_t job = recorded_pid(0);
    EXPECT_FALSE(process_stopped(job));
    write_file(m_dir / "record/go", "");
    // The job ends while the launcher is stopped (a zombie until the launcher reaps it).
    EXPECT_TRUE(eventually([&] { return !process_alive(job); }, 20s));
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_status(*launcher), 0);
    EXPECT_EQ(launcher_out(), "finished\n");
    EXPECT_EQ(launcher_err(), "colossalai: stopped (SIGTSTP); the jobs keep running and their "
                              "output waits; 'fg' resumes\ncolossalai: resumed\n" +
                                  summary_block({"127.0.0.1: success"}));
}

// `nohup colossalai run ...`: a signal ignored when the launcher starts stays ignored — it is
// not passed on, and the job starts with it ignored too — while the others still work.
TEST_F(RunSignals, ASignalIgnoredAtStartStaysIgnoredAndIsNotPassedOn) {
    behave("all", "ready\nwhile :; do sleep 0.05; done\n");
    RunOptions options;
    options.cwd = job();
    options.env = launcher_env();
    Background launcher({"/bin/sh", "-c", "trap '' HUP; exec \"$0\" \"$@\"", binary().string(),
                         "run", "--nproc_per_node", "1", "train.py"},
                        options, m_dir / "launcher.out", m_dir / "launcher.err");
    ASSERT_TRUE(wait_for(0)) << launcher_err();
    pid_t job_pid = recorded_pid(0);
    EXPECT_TRUE(signal_ignored(launcher.pid(), SIGHUP));
    EXPECT_TRUE(signal_ignored(job_pid, SIGHUP)); // as under nohup
    EXPECT_FALSE(signal_ignored(job_pid, SIGTERM));
    launcher.signal(SIGHUP);
    std::this_thread::sleep_for(500ms);
    EXPECT_TRUE(process_alive(job_pid));
    EXPECT_FALSE(launcher.wait(0ms).has_value());
    launcher.signal(SIGTERM);
    EXPECT_EQ(exit_status(launcher), 143);
    EXPECT_EQ(
        launcher_err(),
        "colossalai: received SIGTERM; stopping all nodes (the same signal again kills "
        "them at once)\n" +
            summary_block({"127.0.0.1: failure (killed by SIGTERM, stopped by the launcher)"}));
}

} // namespace
} // namespace colossalai::test
