#include "support.hpp"

#include <gtest/gtest.h>

namespace colossalai::test {
namespace {

TEST(CheckCli, VersionFlagPrintsTheVersion) {
    RunResult result = run_colossalai({"--version"});
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out.rfind("colossalai ", 0), 0u) << result.out;
}

TEST(CheckCli, CheckWithoutOptionIsAUsageError) {
    RunResult result = run_colossalai({"check"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err.rfind("Error: no option given to 'colossalai check'\n", 0), 0u)
        << result.err;
}

} // namespace
} // namespace colossalai::test
