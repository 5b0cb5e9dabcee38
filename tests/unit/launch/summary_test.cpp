#include "colossalai/launch/summary.hpp"

#include <gtest/gtest.h>

#include <csignal>

namespace colossalai::launch {
namespace {

using job::Outcome;

TEST(Summary, RendersOneLinePerHost) {
    std::vector<NodeOutcome> outcomes{
        {"node1", Outcome::exited(0), {}},
        {"node2", Outcome::exited(3), {}},
        {"node3", Outcome::killed(SIGTERM), {SIGTERM}},
        {"node4", Outcome::connection_lost("connection lost: Socket error"), {SIGTERM}},
        {"node5", Outcome::exited(0), {SIGTERM}}};
    EXPECT_EQ(render_summary(outcomes), "====== Training on All Nodes =====\n"
                                        "node1: success\n"
                                        "node2: failure (exit code 3)\n"
                                        "node3: failure (killed by SIGTERM, stopped by the "
                                        "launcher)\n"
                                        "node4: failure (connection lost: Socket error, stopped "
                                        "by the launcher)\n"
                                        "node5: success (exit code 0 after SIGTERM, stopped by "
                                        "the launcher)\n");
}

// A local node and a remote one, both stopped before their start because a third host could
// not be reached: each reads the same, once (the local one used to say "stopped by the
// launcher" twice).
TEST(Summary, NodesNeverStartedReadTheSameWhateverTheirTransport) {
    std::vector<NodeOutcome> outcomes{
        {"localhost", Outcome::not_started(), {SIGTERM}},
        {"node1", Outcome::not_started(), {SIGTERM}},
        {"nobody@127.0.0.1", Outcome::connect_failed("cannot connect: Connection refused"), {}}};
    EXPECT_EQ(render_summary(outcomes),
              "====== Training on All Nodes =====\n"
              "localhost: failure (not started, stopped by the launcher)\n"
              "node1: failure (not started, stopped by the launcher)\n"
              "nobody@127.0.0.1: failure (cannot connect: Connection refused)\n");
}

TEST(Summary, ExitCodeIsZeroOnlyWhenAllSucceeded) {
    std::vector<NodeOutcome> ok{{"a", Outcome::exited(0), {}}, {"b", Outcome::exited(0), {}}};
    EXPECT_EQ(launcher_exit_code(ok, std::nullopt, 0), 0);
}

TEST(Summary, ExitCodeIsTheFirstFailure) {
    std::vector<NodeOutcome> outcomes{{"a", Outcome::killed(SIGTERM), {SIGTERM}},
                                      {"b", Outcome::exited(3), {}}};
    EXPECT_EQ(launcher_exit_code(outcomes, 1, 0), 3);
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, 0), 143); // first in node order
}

TEST(Summary, ExitCodeOfErrors) {
    std::vector<NodeOutcome> refused{{"a", Outcome::connect_failed("refused"), {}}};
    EXPECT_EQ(launcher_exit_code(refused, 0, 0), 255);
    std::vector<NodeOutcome> missing{{"a", Outcome::cannot_run("cannot execute torchrun"), {}}};
    EXPECT_EQ(launcher_exit_code(missing, 0, 0), 127);
}

TEST(Summary, ExitCodeAfterASignalToTheLauncher) {
    std::vector<NodeOutcome> outcomes{{"a", Outcome::exited(1), {SIGINT}}};
    EXPECT_EQ(launcher_exit_code(outcomes, std::nullopt, SIGINT), 130);
    EXPECT_EQ(launcher_exit_code(outcomes, 0, SIGTERM), 143);
}

} // namespace
} // namespace colossalai::launch
