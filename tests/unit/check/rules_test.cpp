#include "../case_name.hpp"

#include "colossalai/check/rules.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

using Text = std::optional<std::string>;
using Mark = std::optional<bool>;
constexpr std::nullopt_t na = std::nullopt;

struct RuleCase {
    const char* name;
    Text torch;
    Text torch_cuda;
    bool cpu_only;
    Text system_cuda;
    Text aot_torch;
    Text aot_cuda;
    Text driver_cuda;
    Mark torch_match;
    Mark system_torch_cuda;
    Mark system_colossalai_cuda;
    Mark driver_ok;
    int exit_status;
};

class Evaluate : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Evaluate, AppliesTheCompatibilityRules) {
    const RuleCase& c = GetParam();
    Facts facts;
    facts.torch_version = c.torch;
    facts.torch_cuda = c.torch_cuda;
    facts.torch_cpu_only = c.cpu_only;
    facts.system_cuda = c.system_cuda;
    facts.aot_torch = c.aot_torch;
    facts.aot_cuda = c.aot_cuda;
    facts.driver_cuda = c.driver_cuda;
    Checks checks = evaluate(facts);
    EXPECT_EQ(checks.torch_version_match, c.torch_match) << c.name;
    EXPECT_EQ(checks.system_torch_cuda_match, c.system_torch_cuda) << c.name;
    EXPECT_EQ(checks.system_colossalai_cuda_match, c.system_colossalai_cuda) << c.name;
    EXPECT_EQ(checks.driver_supports_torch_cuda, c.driver_ok) << c.name;
    EXPECT_EQ(exit_status(checks), c.exit_status) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Evaluate,
    ::testing::Values(
        // name, torch, torch cuda, cpu only, system cuda, aot torch, aot cuda, driver,
        //   -> torch match, sys/torch cuda, sys/colossalai cuda, driver ok, exit
        RuleCase{"all known and equal", "2.1.0", "12.1", false, "12.1", "2.1", "12.1", "12.4", true,
                 true, true, true, 0},
        RuleCase{"nothing known", na, na, false, na, na, na, na, na, na, na, na, 0},
        RuleCase{"patch ignored", "2.1.5", "12.1", false, "12.1.105", "2.1.0", "12.1", "12.1", true,
                 true, true, true, 0},
        RuleCase{"minor differs", "2.2.0", "12.1", false, "12.4", "2.1", "12.4", "12.4", false,
                 false, true, true, 1},
        RuleCase{"12.10 is not 12.1", "2.1.0", "12.1", false, "12.10", na, "12.1", "12.10", na,
                 false, false, true, 1},
        RuleCase{"two-component versions", "1.13", "11.7", false, "11.7", "1.13", "11.7", "11.7",
                 true, true, true, true, 0},
        RuleCase{"alpha with git label", "1.13.0a0+gitabc", "11.7", false, "11.7", "1.13", na, na,
                 true, true, na, na, 0},
        RuleCase{"major differs", "2.1.0", "11.8", false, "12.8", "1.1", "11.8", "12.8", false,
                 false, false, true, 1},
        RuleCase{"no AOT versions", "2.1.0", "12.1", false, "12.1", na, na, na, na, true, na, na,
                 0},
        RuleCase{"no system CUDA", "2.1.0", "12.1", false, na, "2.1", "12.1", "12.2", true, na, na,
                 true, 0},
        RuleCase{"CPU-only PyTorch", "1.13.0a0", na, true, "13.0", na, na, "13.0", na, false, na,
                 na, 1},
        RuleCase{"CPU-only PyTorch, no system CUDA", "2.2.1", na, true, na, na, na, na, na, na, na,
                 na, 0},
        RuleCase{"PyTorch not found", na, na, false, "12.4", "2.1", "12.4", "12.4", na, na, true,
                 na, 0},
        RuleCase{"driver too old", "2.1.0", "12.1", false, "12.1", na, na, "11.8", na, true, na,
                 false, 1},
        RuleCase{"driver older minor", "2.4.0", "12.4", false, "12.4", na, na, "12.2", na, true, na,
                 false, 1},
        RuleCase{"driver newer major", "2.4.0", "12.4", false, "12.4", na, na, "13.0", na, true, na,
                 true, 0},
        RuleCase{"driver 12.10 is newer than 12.9", "2.9.0", "12.9", false, "12.9", na, na, "12.10",
                 na, true, na, true, 0},
        RuleCase{"garbage is unknown", "abc", "None", false, "twelve", "x.y", "", "?", na, na, na,
                 na, 0},
        RuleCase{"garbage system CUDA with CPU PyTorch", "2.1.0", na, true, "garbage", na, na, na,
                 na, na, na, na, 0}),
    unit::CaseName());

TEST(ExitStatus, OneForAnyFalse) {
    EXPECT_EQ(exit_status(Checks{}), 0);
    EXPECT_EQ(exit_status(Checks{true, true, true, true}), 0);
    EXPECT_EQ(exit_status(Checks{na, na, na, false}), 1);
    EXPECT_EQ(exit_status(Checks{false, na, na, na}), 1);
    EXPECT_EQ(exit_status(Checks{true, false, true, true}), 1);
    EXPECT_EQ(exit_status(Checks{true, true, false, na}), 1);
}

} // namespace
} // namespace colossalai::check
