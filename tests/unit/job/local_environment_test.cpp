#include "colossalai/job/local_environment.hpp"

#include <gtest/gtest.h>

namespace colossalai::job {
namespace {

using Words = std::vector<std::string>;

EnvironmentChanges changes() {
    EnvironmentChanges result;
    result.set = {{"A", "new", "-x"}, {"NEW", "1", "f:1"}};
    result.dropped = {"NCCL_SOCKET_IFNAME"};
    result.patterns = {"NCCL_SOCKET_IFNAME"};
    return result;
}

TEST(LocalEnvironment, SetValuesReplaceOrJoinTheLaunchersOwn) {
    Words entries = {"A=old", "HOME=/h", "NCCL_SOCKET_IFNAME=eth0", "ODD"};
    EXPECT_EQ(local_environment(entries, changes(), false),
              (Words{"HOME=/h", "NCCL_SOCKET_IFNAME=eth0", "ODD", "A=new", "NEW=1"}));
}

TEST(LocalEnvironment, SrunLeavesOutTheExcludedVariables) {
    Words entries = {"A=old", "HOME=/h", "NCCL_SOCKET_IFNAME=eth0"};
    EXPECT_EQ(local_environment(entries, changes(), true), (Words{"HOME=/h", "A=new", "NEW=1"}));
}

TEST(LocalEnvironment, WithoutChangesIsTheLaunchersEnvironment) {
    Words entries = {"B=2", "A=1"};
    EXPECT_EQ(local_environment(entries, {}, true), entries);
}

// --network-interface's variables win over the launcher's and over -x (a prefix is no match).
TEST(LocalEnvironment, TheFlagsVariablesWinOverEverything) {
    Words entries = {"NCCL_SOCKET_IFNAME=eth0", "NCCL_SOCKET_IFNAME_X=1", "HOME=/h"};
    EXPECT_EQ(with_flag_environment(entries,
                                    {{"NCCL_SOCKET_IFNAME", "ib0"}, {"GLOO_SOCKET_IFNAME", "ib0"}}),
              (Words{"NCCL_SOCKET_IFNAME_X=1", "HOME=/h", "NCCL_SOCKET_IFNAME=ib0",
                     "GLOO_SOCKET_IFNAME=ib0"}));
    EXPECT_EQ(with_flag_environment(entries, {}), entries);
}

} // namespace
} // namespace colossalai::job
