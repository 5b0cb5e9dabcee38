// Faults over SSH that only show with repetition or scale: 100 short launches in a row over two
// hosts leave no process and no sshd session behind, and a running launcher holds no descriptor
// beyond one socket per host and a constant few. The figures are recorded in docs/reliability.md
// ("Faults, measured", over SSH).

#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class SshRepeatedLaunches : public SharedSshCluster<2> {};

// 100 launches in a row of two nodes whose torchrun prints one line and exits 0 at once: each
// succeeds with both lines and the summary, and once it has ended no process of it is left on the
// client or on either host, and each host runs its sshd listener and nothing else.
TEST_F(SshRepeatedLaunches, AHundredShortLaunchesLeaveNothingBehind) {
    FaultJob job(cluster(), "repeat");
    job.behave("all", "echo \"node $rank\"\n");
    const int launches = 100;
    int succeeded = 0;
    for (int i = 0; i < launches; ++i) {
        SCOPED_TRACE("launch " + std::to_string(i));
        RunResult result = job.run("node1,node2");
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        EXPECT_EQ(sorted(lines_of(result.out)), (Words{"node1: node 0", "node2: node 1"}))
            << describe(result);
        EXPECT_EQ(result.err, summary_block({"node1: success", "node2: success"}))
            << describe(result);
        job.expect_none_left(10s);
        for (int k = 0; k <= cluster().hosts(); ++k) {
            std::vector<pid_t> left;
            bool clean = eventually(
                [&] {
                    left =
                        k == 0 ? cluster().pids_on_host(0) : extra_processes_on_host(cluster(), k);
                    return left.empty();
                },
                10s);
            EXPECT_TRUE(clean) << (k == 0 ? std::string("client") : cluster().host(k)) << ": "
                               << left.size() << " processes besides the sshd listener, first "
                               << left.front();
        }
        if (HasFailure()) {
            break;
        }
        ++succeeded;
    }
    std::printf("[ measured ] %d of %d launches over two SSH hosts clean\n", succeeded, launches);
    EXPECT_EQ(succeeded, launches);
    for (int k = 1; k <= cluster().hosts(); ++k) {
        EXPECT_NE(cluster().sshd_pid(k), 0) << "the listener of " << cluster().host(k);
    }
}

} // namespace
} // namespace colossalai::test
