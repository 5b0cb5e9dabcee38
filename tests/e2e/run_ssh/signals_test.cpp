// Signals to a launcher whose nodes run over SSH: SIGINT, SIGTERM and SIGHUP travel to every
// node's job as control lines to the node wrapper, a second SIGINT kills at once, and even a
// SIGKILLed launcher leaves nothing behind (the wrappers see EOF on their stdin).

#include "teardown.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshSignals : public SshTeardown {
protected:
    void SetUp() override {
        SshTeardown::SetUp();
        behave("all", "spawn; ready; hold\n");
    }
};

TEST_F(SshSignals, SigintStopsEveryJobAndExits130) {
    // A grace long enough for a loaded machine: the jobs must end by SIGINT, not by the timer.
    auto launcher = start_launcher({"--kill-grace", "60"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    launcher->signal(SIGINT);
    EXPECT_EQ(exit_status(*launcher), 130);
    // The fake, a shell script started in the background of the wrapper's sh, has SIGINT's
    // default action, as on a local node (the wrapper restores it).
    EXPECT_EQ(
        launcher_err(),
        "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n" +
            summary_block({"node1: failure (killed by SIGINT, stopped by the launcher)",
                           "node2: failure (killed by SIGINT, stopped by the launcher)"}));
    expect_no_job_left(10s);
}

// Over either --ssh-client (the parameter).
class SshSecondSigint : public SshSignals, public ::testing::WithParamInterface<std::string> {};

TEST_P(SshSecondSigint, ASecondSigintKillsAtOnce) {
    behave("all", "trap '' INT; spawn; ready; hold\n"); // a job that takes its time to stop
    auto launcher = start_launcher({"--ssh-client", GetParam(), "--kill-grace", "600"});
    ASSERT_TRUE(all_ready()) << launcher_err();
    launcher->signal(SIGINT);
    ASSERT_TRUE(launcher_said("received SIGINT;")) << launcher_err();
    launcher->signal(SIGINT);
    EXPECT_EQ(exit_status(*launcher), 130);
    EXPECT_EQ(
        launcher_err(),
        "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n"
        "colossalai: received SIGINT again; killing all nodes\n" +
            summary_block(
                {"node1: failure (killed by SIGKILL after SIGINT, stopped by the launcher)",
                 "node2: failure (killed by SIGKILL after SIGINT, stopped by the launcher)"}));
    expect_no_job_left(10s);
}

INSTANTIATE_TEST_SUITE_P(Clients, SshSecondSigint, ::testing::Values("libssh", "openssh"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

struct Forwarded {
    int signo;
    std::string name;
    int exit_code;
};

TEST_F(SshSignals, SigtermAndSighupArePassedOnToEveryJob) {
    for (const Forwarded& c :
         {Forwarded{SIGTERM, "SIGTERM", 143}, Forwarded{SIGHUP, "SIGHUP", 129}}) {
        SCOPED_TRACE(c.name);
        std::filesystem::remove_all(m_dir / "record");
        std::filesystem::create_directories(m_dir / "record");
        auto launcher = start_launcher({"--kill-grace", "600"});
        ASSERT_TRUE(all_ready()) << launcher_err();
        launcher->signal(c.signo);
        EXPECT_EQ(exit_status(*launcher), c.exit_code);
        std::string killed = "failure (killed by " + c.name + ", stopped by the launcher)";
        EXPECT_EQ(launcher_err(), "colossalai: received " + c.name +
                                      "; stopping all nodes (the same signal again kills them at "
                                      "once)\n" +
                                      summary_block({"node1: " + killed, "node2: " + killed}));
        expect_no_job_left(10s);
    }
}

TEST_F(SshSignals, ASigkilledLauncherLeavesNoJobOnAnyHost) {
    const int grace = 3;
    auto launcher = start_launcher({"--kill-grace", std::to_string(grace)});
    ASSERT_TRUE(all_ready()) << launcher_err();
    for (int rank : {0, 1}) {
        pid_t fake = std::stoi(read_file(m_dir / "record" / (std::to_string(rank) + ".pid")));
        std::vector<pid_t> on_host = cluster().processes_with_marker_on_host(rank + 1, marker());
        ASSERT_NE(std::find(on_host.begin(), on_host.end(), fake), on_host.end()) << rank;
    }
    launcher->signal(SIGKILL);
    launcher->wait(10s);
    // The connections close with the launcher: each wrapper reads EOF and stops its job with
    // SIGTERM (which these jobs obey; SIGKILL would follow after the grace).
    expect_no_job_left(std::chrono::seconds(grace));
}

} // namespace
} // namespace colossalai::test
