// A launcher stopped (Ctrl-Z: SIGTSTP, or SIGSTOP) while its remote jobs run and end: after
// `fg` every byte arrives on the terminal's streams and in the log files, in order per node,
// with the right summary and exit status (issue #22: none of it used to arrive, with "2
// successes"). Stops long enough for the heartbeat, the keepalive, --ssh-timeout and the
// wrappers' silence limit (2 x --ssh-timeout) to pass; a wrapper whose silence limit stopped a
// running job, and a connection that died meanwhile, are named as such in the summary.

#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

// The lines of `text` that start with `prefix`, without it, in order.
Words lines_from(const std::string& text, const std::string& prefix) {
    Words found;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind(prefix, 0) == 0) {
            found.push_back(line.substr(prefix.size()));
        }
    }
    return found;
}

// The nodes' part of the launcher's stderr: what comes before the summary.
std::string before_summary(const std::string& err) {
    return err.substr(0, err.find("====== Training on All Nodes"));
}

// What each node prints once released: 8 lines on stdout, 1 on stderr (16 and 2 for the job).
constexpr int lines_per_node = 8;
const std::string printing = "ready\nawait go\ni=1; while [ $i -le 8 ]; do echo \"rank $rank line "
                             "$i\"; i=$((i+1)); done\necho \"rank $rank warning\" >&2\n";

Words expected_lines(int rank) {
    Words lines;
    for (int i = 1; i <= lines_per_node; ++i) {
        lines.push_back("rank " + std::to_string(rank) + " line " + std::to_string(i));
    }
    return lines;
}

struct Stop {
    std::string name;
    int signo;
    std::chrono::milliseconds pause; // from the stop to the continue
    Words args;                      // --ssh-timeout, --log-dir
    bool log_dir = false;
};

// For GoogleTest's messages.
void PrintTo(const Stop& stop, std::ostream* out) {
    *out << stop.name;
}

class SshStoppedLauncher : public SharedSshCluster<2>,
                           public ::testing::WithParamInterface<Stop> {};

// The jobs print and end while the launcher is stopped; it is continued after the pause.
TEST_P(SshStoppedLauncher, AJobThatEndsWhileTheLauncherIsStoppedLosesNothing) {
    const Stop& stop = GetParam();
    FaultJob job(cluster(), "stopped-" + stop.name);
    job.behave("all", printing);
    Words args = stop.args;
    if (stop.log_dir) {
        args.insert(args.end(), {"--log-dir", "logs"});
    }
    std::unique_ptr<Background> launcher = job.start("node1,node2", args);
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    auto stopped_at = std::chrono::steady_clock::now();
    launcher->signal(stop.signo);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    job.release("go");
    EXPECT_TRUE(eventually([&] { return job.ended_on(1) && job.ended_on(2); }, 30s))
        << "the nodes did not end while the launcher was stopped";
    std::this_thread::sleep_until(stopped_at + stop.pause);
    EXPECT_TRUE(process_stopped(launcher->pid()));
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();

    std::string out = job.out();
    EXPECT_EQ(lines_from(out, "node1: "), expected_lines(0)) << out;
    EXPECT_EQ(lines_from(out, "node2: "), expected_lines(1)) << out;
    EXPECT_EQ(lines_of(out).size(), 2u * lines_per_node) << out;
    std::string err = job.err();
    EXPECT_EQ(lines_from(before_summary(err), "node1: "), Words{"rank 0 warning"}) << err;
    EXPECT_EQ(lines_from(before_summary(err), "node2: "), Words{"rank 1 warning"}) << err;
    std::string summary = summary_block({"node1: success", "node2: success"});
    if (stop.log_dir) {
        summary +=
            "colossalai: the nodes' output is also in " + (job.dir() / "job/logs").string() + "/\n";
    }
    ASSERT_GE(err.size(), summary.size()) << err;
    EXPECT_EQ(err.substr(err.size() - summary.size()), summary) << err;
    if (stop.log_dir) {
        for (int rank : {0, 1}) {
            std::string base = (job.dir() / "job/logs").string() + "/" + std::to_string(rank) +
                               "-node" + std::to_string(rank + 1);
            std::string lines;
            for (const std::string& line : expected_lines(rank)) {
                lines += line + "\n";
            }
            EXPECT_EQ(read_file(base + ".out"), lines) << base;
            EXPECT_EQ(read_file(base + ".err"), "rank " + std::to_string(rank) + " warning\n")
                << base;
        }
    }
    job.expect_none_left(10s);
}

std::string stop_name(const ::testing::TestParamInfo<Stop>& info) {
    return info.param.name;
}

// --ssh-timeout 1: a heartbeat and a keepalive every 1/6 s, the wrappers' silence limit 2 s.
// The default (30 s): both every 5 s, the limit 60 s.
INSTANTIATE_TEST_SUITE_P(
    Stops, SshStoppedLauncher,
    ::testing::Values(
        Stop{"SigstopFor2s", SIGSTOP, 2000ms, {}},
        Stop{"SigstopFor6sPastTheHeartbeatAndKeepalive", SIGSTOP, 6000ms, {}},
        Stop{"SigstopPastTheSshTimeout", SIGSTOP, 1500ms, {"--ssh-timeout", "1"}},
        Stop{"SigstopPastTheSshTimeoutWithLogDir", SIGSTOP, 1500ms, {"--ssh-timeout", "1"}, true},
        Stop{"SigstopPastTheSilenceLimitWithLogDir", SIGSTOP, 3000ms, {"--ssh-timeout", "1"}, true},
        Stop{"SigtstpPastTheSilenceLimit", SIGTSTP, 3000ms, {"--ssh-timeout", "1"}},
        Stop{"SigtstpPastTheSilenceLimitOverOpenssh",
             SIGTSTP,
             3000ms,
             {"--ssh-client", "openssh", "--ssh-timeout", "1"}}),
    stop_name);

class SshStoppedLauncherOutput : public SharedSshCluster<2> {};

// A progress bar (`\r` updates on stderr, as tqdm's) and lines, all printed while the launcher is
// stopped: the log file holds every byte; the launcher's stderr (a file) the bar's last state as
// a line and every other line.
TEST_F(SshStoppedLauncherOutput, AProgressBarPrintedWhileTheLauncherIsStoppedArrives) {
    FaultJob job(cluster(), "stopped-bar");
    job.behave("all", "ready\nawait go\nfor p in 10 50 100; do printf '\\rrank %s %s%%' $rank $p "
                      ">&2; done\necho >&2\necho \"rank $rank done\"\n");
    std::unique_ptr<Background> launcher =
        job.start("node1,node2", {"--ssh-timeout", "1", "--log-dir", "logs"});
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    launcher->signal(SIGSTOP);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    job.release("go");
    EXPECT_TRUE(eventually([&] { return job.ended_on(1) && job.ended_on(2); }, 30s));
    std::this_thread::sleep_for(1500ms); // past --ssh-timeout, the heartbeat and the keepalive
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_code_of(*launcher, 60s), 0) << job.err();
    std::string out = job.out();
    EXPECT_EQ(lines_from(out, "node1: "), Words{"rank 0 done"}) << out;
    EXPECT_EQ(lines_from(out, "node2: "), Words{"rank 1 done"}) << out;
    std::string err = job.err();
    EXPECT_EQ(err.find('\r'), std::string::npos);
    for (int rank : {0, 1}) {
        std::string host = "node" + std::to_string(rank + 1);
        Words bar = lines_from(before_summary(err), host + ": ");
        ASSERT_FALSE(bar.empty()) << err;
        EXPECT_EQ(bar.back(), "rank " + std::to_string(rank) + " 100%") << err;
        EXPECT_EQ(read_file(job.dir() / "job/logs" / (std::to_string(rank) + "-" + host + ".err")),
                  "\rrank " + std::to_string(rank) + " 10%\rrank " + std::to_string(rank) +
                      " 50%\rrank " + std::to_string(rank) + " 100%\n");
    }
    EXPECT_NE(err.find(summary_block({"node1: success", "node2: success"})), std::string::npos)
        << err;
    job.expect_none_left(10s);
}

// SIGSTOP (which sends the wrappers no PAUSE) past their silence limit while the jobs still run:
// each wrapper stops its job as for a launcher that died. After SIGCONT the output printed
// before arrives, and the summary says that the node stopped the job for want of the launcher,
// not that the job failed.
TEST_F(SshStoppedLauncherOutput, ASigstopPastTheSilenceLimitIsNamedInTheSummary) {
    FaultJob job(cluster(), "stopped-silence");
    job.behave("all", "echo \"rank $rank before\"\nready\nhold\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2", {"--ssh-timeout", "1"});
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    ASSERT_TRUE(eventually([&] { return lines_of(job.out()).size() == 2; }, 30s)) << job.out();
    launcher->signal(SIGSTOP);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    EXPECT_TRUE(eventually([&] { return job.ended_on(1) && job.ended_on(2); }, 30s))
        << "the wrappers did not stop their jobs after their silence limit";
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_code_of(*launcher, 60s), 255) << job.err();
    std::string out = job.out();
    EXPECT_EQ(lines_from(out, "node1: "), Words{"rank 0 before"}) << out;
    EXPECT_EQ(lines_from(out, "node2: "), Words{"rank 1 before"}) << out;
    const std::string reason = "failure (stopped by its node: nothing came from the launcher for "
                               "2 s (was the launcher stopped by SIGSTOP, or cut off from the "
                               "node?)";
    std::string err = job.err();
    for (const char* host : {"node1", "node2"}) {
        Words line = lines_from(err, std::string(host) + ": ");
        ASSERT_EQ(line.size(), 1u) << err;
        EXPECT_EQ(line[0].rfind(reason, 0), 0u) << err;
    }
    job.expect_none_left(10s);
}

// A connection that died while the launcher was stopped (its sshd session killed: the wrapper
// reads EOF and stops the job) is a lost connection in the summary, and fail-fast stops the
// other node.
TEST_F(SshStoppedLauncherOutput, AConnectionThatDiedWhileStoppedIsNamedLost) {
    FaultJob job(cluster(), "stopped-lost");
    job.behave("all", "ready\nhold\n");
    std::unique_ptr<Background> launcher = job.start("node1,node2");
    ASSERT_TRUE(job.ready(0) && job.ready(1)) << job.err();
    launcher->signal(SIGSTOP);
    ASSERT_TRUE(eventually([&] { return process_stopped(launcher->pid()); }, 20s));
    cluster().kill_sshd_sessions(1);
    EXPECT_TRUE(eventually([&] { return job.ended_on(1); }, 30s));
    launcher->signal(SIGCONT);
    EXPECT_EQ(exit_code_of(*launcher, 60s), 255) << job.err();
    std::string err = job.err();
    Words node1 = lines_from(err, "node1: ");
    ASSERT_EQ(node1.size(), 1u) << err;
    EXPECT_EQ(node1[0].rfind("failure (connection lost", 0), 0u) << err;
    EXPECT_TRUE(has_line(err, "node2: failure (killed by SIGTERM, stopped by the launcher)"))
        << err;
    job.expect_none_left(20s);
}

} // namespace
} // namespace colossalai::test
