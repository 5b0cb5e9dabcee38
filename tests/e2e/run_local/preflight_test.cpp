// `colossalai run` on this machine: the node's preflight (here a network interface that does
// not exist; a command that cannot be found: RunLaunch.ATorchrunNotOnPathIsAClearFailure)
// refuses the launch with one line and exit status 254 before anything starts; --network-interface
// reaches the job; --python runs that interpreter's
// `-m torch.distributed.run`. The GPU preflight (the fake nvidia-smi,
// tests/fixtures/fake_nvidia_smi.sh, first on PATH): too few GPUs for what the launch asks stop
// it with one line and exit 254; a machine without GPUs runs a CPU-only job; `cpu` counts none.

#include "fake_gpus.hpp"
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

TEST_F(RunLocalPreflight, AMissingScriptStartsNothing) {
    // Two local nodes: each names the script it cannot read, and neither starts.
    RunResult result = run_colossalai_run({"--host", "127.0.0.1,127.0.0.2", "--no-rendezvous-check",
                                           "--nproc_per_node", "1", "trian.py"});
    EXPECT_EQ(result.exit_code, 254) << result.err;
    const std::string reason = "cannot read the script 'trian.py' on the node (torchrun opens it "
                               "from the working directory: copy it to every node, or check its "
                               "name)";
    EXPECT_EQ(result.err, summary_header + "\n127.0.0.1: failure (" + reason +
                              ")\n127.0.0.2: failure (" + reason + ")\n");
    EXPECT_FALSE(torchrun_called());
}

TEST_F(RunLocalPreflight, AModuleIsNotLookedForAsAFile) {
    set_torch("2.1.0");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "-m", "pkg.train"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(torchrun_called());
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

class RunLocalGpuPreflight : public RunLocal {
protected:
    // This machine has `gpus` GPUs, as the fake nvidia-smi says.
    Env with_gpus(int gpus) const {
        install_fake_nvidia_smi(gpu_dir(), gpus);
        Env env = launcher_env();
        env["PATH"] = gpu_dir().string() + ":" + env["PATH"];
        return env;
    }
    std::filesystem::path gpu_dir() const { return m_dir / "gpus"; }

    void expect_refused(const RunResult& result, const std::string& node,
                        const std::string& reason) const {
        EXPECT_EQ(result.exit_code, 254) << result.err;
        EXPECT_EQ(result.err, summary_header + "\n" + node + ": failure (" + reason + ")\n");
        EXPECT_FALSE(torchrun_called());
    }
};

TEST_F(RunLocalGpuPreflight, MoreProcessesThanGpusStartNothing) {
    RunResult result = run_colossalai_run({"--nproc_per_node", "2", "train.py"}, with_gpus(1));
    expect_refused(result, "127.0.0.1",
                   "2 GPUs asked (2 processes, one GPU each), 1 found (nvidia-smi -L); give "
                   "--nproc_per_node 1 or fewer, or pick the node's GPUs with --include HOST:0,1");
}

TEST_F(RunLocalGpuPreflight, GpuIndicesBeyondTheMachinesGpusStartNothing) {
    write_file(job() / "hosts", "localhost slots=4\n");
    RunResult result = run_colossalai_run(
        {"--hostfile", "hosts", "--include", "localhost:0,3", "train.py"}, with_gpus(1));
    expect_refused(result, "localhost",
                   "2 GPUs asked (indices 0,3), 1 found (nvidia-smi -L); GPU indices are the "
                   "node's own, from 0");
}

TEST_F(RunLocalGpuPreflight, NprocGpuOnAMachineWithoutGpusStartsNothing) {
    set_torch("2.1.0");
    RunResult result = run_colossalai_run({"--nproc_per_node", "gpu", "train.py"}, with_gpus(0));
    expect_refused(result, "127.0.0.1",
                   "1 GPU asked (--nproc_per_node gpu), 0 found (nvidia-smi -L); a CPU-only job "
                   "takes --nproc_per_node cpu or a number");
}

TEST_F(RunLocalGpuPreflight, ACpuOnlyMachineRunsTheJob) {
    RunResult result = run_colossalai_run({"--nproc_per_node", "2", "train.py"}, with_gpus(0));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(torchrun_called());
    EXPECT_TRUE(fake_nvidia_smi_ran(gpu_dir())); // counted, and none is no shortage
}

TEST_F(RunLocalGpuPreflight, EnoughGpusRunTheJob) {
    RunResult result = run_colossalai_run({"--nproc_per_node", "2", "train.py"}, with_gpus(2));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(torchrun_called());
}

TEST_F(RunLocalGpuPreflight, NprocCpuCountsNoGpu) {
    set_torch("2.1.0");
    RunResult result = run_colossalai_run({"--nproc_per_node", "cpu", "train.py"}, with_gpus(0));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(torchrun_called());
    EXPECT_FALSE(fake_nvidia_smi_ran(gpu_dir()));
}

} // namespace
} // namespace colossalai::test
