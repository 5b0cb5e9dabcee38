#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/exec/signals.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <vector>

namespace colossalai::exec {
namespace {

bool blocked(int signo) {
    sigset_t mask;
    sigemptyset(&mask);
    ::sigprocmask(SIG_BLOCK, nullptr, &mask);
    return sigismember(&mask, signo) == 1;
}

bool ignored(int signo) {
    struct sigaction action {};
    ::sigaction(signo, nullptr, &action);
    return action.sa_handler == SIG_IGN;
}

TEST(StopSignals, AreInterruptTerminateAndHangUp) {
    sigset_t set = stop_signals();
    std::vector<int> members;
    for (int signo = 1; signo < NSIG; ++signo) {
        if (sigismember(&set, signo) == 1) {
            members.push_back(signo);
        }
    }
    EXPECT_EQ(members, (std::vector<int>{SIGHUP, SIGINT, SIGTERM}));
}

// The policy's sets as the launcher, the probe runner and the node wrapper use them: every stop
// signal is relayed to the nodes (with SIGKILL after the grace), the guardian ignores each of
// them, and a job gets each back at its default.
TEST(SignalPolicy, TheStopSignalsAreRelayedIgnoredByTheGuardianAndResetForJobs) {
    for (int signo : signal_policy::stop) {
        EXPECT_TRUE(signal_policy::contains(signal_policy::relayed_to_nodes, signo)) << signo;
        EXPECT_TRUE(signal_policy::contains(signal_policy::ignored_by_guardian, signo)) << signo;
        EXPECT_TRUE(signal_policy::contains(signal_policy::default_for_jobs, signo)) << signo;
    }
    EXPECT_TRUE(signal_policy::contains(signal_policy::relayed_to_nodes, SIGKILL));
    EXPECT_FALSE(signal_policy::contains(signal_policy::relayed_to_nodes, SIGQUIT));
    EXPECT_FALSE(signal_policy::contains(signal_policy::stop, SIGPIPE));
    sigset_t set = signal_policy::as_set(signal_policy::default_for_probes);
    for (int signo = 1; signo < NSIG; ++signo) {
        EXPECT_EQ(sigismember(&set, signo) == 1,
                  signal_policy::contains(signal_policy::default_for_probes, signo))
            << signo;
    }
}

// Slurm delivers a step's signals to the task's wrapper and relay themselves: they outlive every
// signal the launcher sends the step for a stop (scancel --signal), and a few more that srun or a
// user may send it.
TEST(SignalPolicy, WhatSlurmDeliversToAStepHoldsEveryStopSignal) {
    for (int signo : signal_policy::stop) {
        EXPECT_TRUE(signal_policy::contains(signal_policy::delivered_to_slurm_steps, signo))
            << signo;
    }
    EXPECT_FALSE(signal_policy::contains(signal_policy::delivered_to_slurm_steps, SIGKILL));
}

// The lists as the scripts spell them (a shell's `trap` and `case`, perl's `qw()`): the names of
// util's one table, in the list's order.
TEST(SignalPolicy, ShortNamesSpellAListInItsOrder) {
    EXPECT_EQ(signal_policy::short_names(signal_policy::relayed_to_nodes, "|"),
              "INT|TERM|HUP|KILL");
    EXPECT_EQ(signal_policy::short_names(signal_policy::delivered_to_slurm_steps, " "),
              "INT TERM HUP QUIT USR1 USR2 ALRM");
    EXPECT_EQ(signal_policy::short_names(std::array<int, 1>{SIGPIPE}, " "), "PIPE");
    EXPECT_EQ(signal_policy::short_names(std::array<int, 0>{}, " "), "");
}

// Each stop signal sent to the process arrives through the descriptor, not as a signal (which
// would end this test process); the destructor gives the process its mask and SIGPIPE back.
TEST(SignalChannel, DeliversStopSignalsThroughItsDescriptorThenRestores) {
    ASSERT_FALSE(blocked(SIGTERM));
    {
        SignalChannel channel;
        EXPECT_TRUE(blocked(SIGINT) && blocked(SIGTERM) && blocked(SIGHUP));
        EXPECT_TRUE(ignored(SIGPIPE));
        EXPECT_TRUE(channel.take().empty());
        for (int signo : {SIGTERM, SIGINT, SIGHUP}) {
            ASSERT_EQ(::kill(::getpid(), signo), 0);
            EXPECT_EQ(channel.take(), std::vector<int>{signo});
        }
        EXPECT_TRUE(channel.take().empty());
    }
    EXPECT_FALSE(blocked(SIGINT) || blocked(SIGTERM) || blocked(SIGHUP));
    EXPECT_FALSE(ignored(SIGPIPE));
}

// The check's channel leaves SIGPIPE alone (`check -i | head -1` ends as any command would).
TEST(SignalChannel, LeavesSigpipeAloneWhenAsked) {
    {
        SignalChannel channel(SignalChannelSettings{.ignore_sigpipe = false});
        EXPECT_TRUE(blocked(SIGTERM));
        EXPECT_FALSE(ignored(SIGPIPE));
        ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);
        EXPECT_EQ(channel.take(), std::vector<int>{SIGTERM});
    }
    EXPECT_FALSE(blocked(SIGTERM));
    EXPECT_FALSE(ignored(SIGPIPE));
}

// A stop signal ignored when the channel is made (nohup) is neither blocked nor read: it stays
// ignored, and the others still arrive.
TEST(SignalChannel, ASignalIgnoredAtStartStaysIgnored) {
    ::signal(SIGHUP, SIG_IGN);
    {
        SignalChannel channel;
        EXPECT_FALSE(blocked(SIGHUP));
        ASSERT_EQ(::kill(::getpid(), SIGHUP), 0);
        ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
        EXPECT_EQ(channel.take(), std::vector<int>{SIGINT});
    }
    EXPECT_TRUE(ignored(SIGHUP));
    ::signal(SIGHUP, SIG_DFL);
}

// A child forked while the launcher blocks and ignores signals starts its job as a shell would:
// nothing blocked, default dispositions.
TEST(ResetSignalsForExec, GivesTheChildAnEmptyMaskAndDefaultDispositions) {
    SignalChannel channel;
    ::signal(SIGQUIT, SIG_IGN);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        reset_signals_for_exec();
        bool clean = true;
        for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) {
            clean = clean && !blocked(signo) && !ignored(signo);
        }
        ::_exit(clean ? 0 : 1);
    }
    ::signal(SIGQUIT, SIG_DFL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
}

} // namespace
} // namespace colossalai::exec
