// Two launches at the same time on the same two hosts, with different --master_port: a SIGINT to
// one stops its jobs only; the other's jobs run on and then finish. Recorded in
// docs/reliability.md ("Faults, measured", over SSH).

#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshConcurrentLaunches : public SharedSshCluster<2> {};

std::string cmdline_of(pid_t pid) {
    std::string text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(text.begin(), text.end(), '\0', ' ');
    return text;
}

TEST_F(SshConcurrentLaunches, SigintToOneLaunchLeavesTheOtherRunning) {
    FaultJob first(cluster(), "first");
    FaultJob second(cluster(), "second");
    first.behave("all", "spawn; ready; hold\n");
    second.behave("all", "spawn; ready; await done\necho \"node $rank done\"\n");
    std::unique_ptr<Background> stopped =
        first.start("node1,node2", {"--master_port", "29500", "--kill-grace", "60"});
    std::unique_ptr<Background> running =
        second.start("node1,node2", {"--master_port", "29501", "--kill-grace", "60"});
    for (int rank : {0, 1}) {
        ASSERT_TRUE(first.ready(rank)) << first.err();
        ASSERT_TRUE(second.ready(rank)) << second.err();
        EXPECT_NE(cmdline_of(first.recorded_pid(rank)).find("--master_port=29500"),
                  std::string::npos);
        EXPECT_NE(cmdline_of(second.recorded_pid(rank)).find("--master_port=29501"),
                  std::string::npos);
    }
    // The second launch's processes on the hosts: wrappers, fakes, their children.
    std::vector<std::pair<int, pid_t>> others = second.processes();
    for (int host : {1, 2}) {
        EXPECT_GE(std::count_if(others.begin(), others.end(),
                                [&](const auto& entry) { return entry.first == host; }),
                  2)
            << cluster().host(host);
    }

    for (int rank : {0, 1}) {
        // torchrun, spawn's child and grandchild
        EXPECT_EQ(second.recorded_job(rank).size(), 3U) << "rank " << rank;
    }

    stopped->signal(SIGINT);
    EXPECT_EQ(exit_code_of(*stopped, 60s), 130) << first.err();
    EXPECT_EQ(
        first.err(),
        "colossalai: received SIGINT; stopping all nodes (Ctrl-C again kills them at once)\n" +
            summary_block({"node1: failure (killed by SIGINT, stopped by the launcher)",
                           "node2: failure (killed by SIGINT, stopped by the launcher)"}));
    first.expect_none_left(10s);

    for (int rank : {0, 1}) {
        for (pid_t pid : second.recorded_job(rank)) {
            EXPECT_TRUE(process_alive(pid)) << "rank " << rank << ": " << pid << " was stopped";
        }
    }
    EXPECT_FALSE(running->wait(0ms).has_value()) << second.err();
    second.release("done");
    EXPECT_EQ(exit_code_of(*running, 60s), 0) << second.err();
    EXPECT_EQ(sorted(lines_of(second.out())), (Words{"node1: node 0 done", "node2: node 1 done"}));
    EXPECT_EQ(second.err(), summary_block({"node1: success", "node2: success"}));
    second.expect_none_left(10s);
}

} // namespace
} // namespace colossalai::test
