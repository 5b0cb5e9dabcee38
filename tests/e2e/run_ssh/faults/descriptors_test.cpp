// The descriptors of a running launcher over SSH, read from /proc/<launcher>/fd while its nodes
// run: the standard streams, one socket per host, and a constant few of its own (the signalfd...)
// that do not grow with the number of hosts. The figures are recorded in docs/reliability.md
// ("Faults, measured", over SSH).

#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

// Two hosts plus four aliases of node1: launches of 1, 2 and 6 nodes.
class SshLauncherDescriptors : public SharedSshCluster<2, 4> {};

struct Descriptors {
    std::map<int, std::string> standard; // 0, 1, 2 -> target
    int sockets = 0;
    std::map<std::string, int> others; // kind ("anon_inode:[signalfd]", "pipe", a path) -> count
    std::string listing;
};

// The descriptors of this process that a child inherits (no close-on-exec flag), but 0, 1 and 2,
// with their targets: the launcher gets them from the test runner, as from any shell.
std::map<int, std::string> inheritable_fds() {
    std::map<int, std::string> fds;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        int fd = std::stoi(entry.path().filename().string());
        int flags = ::fcntl(fd, F_GETFD);
        std::error_code error;
        std::string target = std::filesystem::read_symlink(entry.path(), error).string();
        if (fd > 2 && flags >= 0 && (flags & FD_CLOEXEC) == 0 && !error) {
            fds[fd] = target;
        }
    }
    return fds;
}

// The launcher's descriptors, but those it inherited from this process (`inherited`).
Descriptors descriptors_of(pid_t pid, const std::map<int, std::string>& inherited) {
    Descriptors found;
    std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/fd";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        int fd = std::stoi(entry.path().filename().string());
        std::string target = std::filesystem::read_symlink(entry.path(), error).string();
        if (error) {
            continue; // closed meanwhile
        }
        found.listing += std::to_string(fd) + " -> " + target + "\n";
        auto from_test = inherited.find(fd);
        if (from_test != inherited.end() && from_test->second == target) {
            continue;
        } else if (fd <= 2) {
            found.standard[fd] = target;
        } else if (target.rfind("socket:[", 0) == 0) {
            ++found.sockets;
        } else if (target.rfind("pipe:[", 0) == 0) {
            ++found.others["pipe"];
        } else {
            ++found.others[target];
        }
    }
    return found;
}

std::string describe(const std::map<std::string, int>& kinds) {
    std::string text;
    for (const auto& [kind, count] : kinds) {
        text += (text.empty() ? "" : ", ") + std::to_string(count) + " x " + kind;
    }
    return text.empty() ? "none" : text;
}

// What each running host costs the launcher beyond its socket: nothing. (The eventfd that hands a
// connection from a worker thread to the loop is closed once the command runs.)
constexpr int eventfds_per_host = 0;

// A launch of N nodes (N = 1, 2, 6) that runs until the test stops it: its descriptors, read while
// every node runs, are 0-2 (/dev/null, the stdout and stderr files), the signalfd, one socket per
// host and the hand-over eventfds above; nothing else, and nothing more for more hosts.
TEST_F(SshLauncherDescriptors, OneSocketPerHostAndAConstantFewBesides) {
    const std::vector<std::string> all = {"node1", "node2", "a001", "a002", "a003", "a004"};
    const std::map<int, std::string> inherited = inheritable_fds();
    for (int n : {1, 2, 6}) {
        SCOPED_TRACE(std::to_string(n) + " hosts");
        FaultJob job(cluster(), "fds" + std::to_string(n));
        job.behave("all", "ready; hold\n");
        std::string hosts;
        for (int i = 0; i < n; ++i) {
            hosts += (i == 0 ? "" : ",") + all[static_cast<size_t>(i)];
        }
        std::unique_ptr<Background> launcher = job.start(hosts, {"--kill-grace", "60"});
        for (int rank = 0; rank < n; ++rank) {
            ASSERT_TRUE(job.ready(rank)) << rank << "\n" << job.err();
        }
        EXPECT_EQ(
            std::filesystem::read_symlink("/proc/" + std::to_string(launcher->pid()) + "/exe"),
            binary());
        // The last hand-over may still be on its way to the loop: wait for the sockets.
        Descriptors fds;
        eventually(
            [&] {
                fds = descriptors_of(launcher->pid(), inherited);
                return fds.sockets == n;
            },
            10s);
        std::printf("[ measured ] launcher of %d nodes: 0-2, %d sockets, %s\n", n, fds.sockets,
                    describe(fds.others).c_str());
        EXPECT_EQ(fds.standard, (std::map<int, std::string>{{0, "/dev/null"},
                                                            {1, job.out_file().string()},
                                                            {2, job.err_file().string()}}))
            << fds.listing;
        EXPECT_EQ(fds.sockets, n) << fds.listing;
        std::map<std::string, int> expected = {{"anon_inode:[signalfd]", 1}};
        if (eventfds_per_host > 0) {
            expected["anon_inode:[eventfd]"] = eventfds_per_host * n;
        }
        EXPECT_EQ(describe(fds.others), describe(expected)) << fds.listing;
        launcher->signal(SIGINT);
        EXPECT_EQ(exit_code_of(*launcher, 60s), 130) << job.err();
        job.expect_none_left(10s);
    }
}

} // namespace
} // namespace colossalai::test
