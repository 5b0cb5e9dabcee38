// `colossalai run` on this machine: the node's preflight (here a network interface that does
// not exist; a command that cannot be found: RunLaunch.ATorchrunNotOnPathIsAClearFailure)
// refuses the launch with one line and exit status 254 before anything starts; --network-interface
// reaches the job; --python runs that interpreter's
// `-m torch.distributed.run`.

#include "fixture.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {
namespace {

using RunLocalPreflight = RunLocal;

const std::string summary_header = "====== Training on All Nodes =====";

TEST_F(RunLocalPreflight, AMissingInterfaceStartsNothing) {
    RunResult result = run_colossalai_run(
        {"--nproc_per_node", "1", "--network-interface", "lo,cai-nosuch0", "train.py"});
    EXPECT_EQ(result.exit_code, 254) << result.err;
    const std::string reason = "no network interface 'cai-nosuch0' (see 'ip -br link' on the "
                               "node; --network-interface names must exist on every node)";
    EXPECT_EQ(result.err, summary_header + "\n127.0.0.1: failure (" + reason + ")\n");
    EXPECT_FALSE(torchrun_called());
}

TEST_F(RunLocalPreflight, InterfacesReachTheJobAsNcclAndGlooVariables) {
    Env env = launcher_env();
    env["NCCL_SOCKET_IFNAME"] = "eth9"; // the flag wins over the launcher's own value
    RunResult result = run_colossalai_run(
        {"--nproc_per_node", "1", "--network-interface", "=lo", "train.py"}, env);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::string environ = read_file(recorded(0, "env"));
    EXPECT_NE(environ.find(std::string("NCCL_SOCKET_IFNAME==lo") + '\0'), std::string::npos);
    EXPECT_NE(environ.find(std::string("GLOO_SOCKET_IFNAME=lo") + '\0'), std::string::npos);
    EXPECT_EQ(environ.find("eth9"), std::string::npos);
}

TEST_F(RunLocalPreflight, PythonRunsTorchDistributedRun) {
    set_torch("2.1.0");
    RunResult result =
        run_colossalai_run({"--nproc_per_node", "1", "--python", venv_python(), "train.py"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::string cmdline = read_file(recorded(0, "cmdline"));
    EXPECT_EQ(cmdline.rfind(venv_python() + '\0' + "-m" + '\0' + "torch.distributed.run" + '\0' +
                                "--nproc_per_node=1",
                            0),
              0u)
        << cmdline;
}

} // namespace
} // namespace colossalai::test
