// `colossalai run` over SSH: every node's preflight runs in the node wrapper, on the connection
// that will run the job, before any job starts. A master address the nodes cannot resolve, a
// working directory they lack, a command not on their PATH, a network interface they do not
// have: each node says so in one line, nothing starts anywhere, exit status 254. --python makes a
// node without torchrun on its PATH work; --network-interface alone lets a real gloo all-reduce
// run on two hosts; a remote exit code above 128 reads as the exit code it is. The GPU
// preflight, with the fake nvidia-smi (tests/fixtures/fake_nvidia_smi.sh) on the nodes' PATH and a
// GPU count per host name: a node with fewer GPUs than processes stops the launch, named, exit
// 254, nothing started anywhere; a cluster without GPUs runs its CPU-only job.

#include "fake_gpus.hpp"
#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class PreflightOverSsh : public SharedSshCluster<2> {
protected:
    void SetUp() override {
        SharedSshCluster<2>::SetUp();
        m_fake.behave("exit 0\n");
    }

    RunResult launch(const Words& extra, LaunchOptions options = {}) const {
        Words args = {"-H", "node1,node2", "--nproc_per_node", "1", "--kill-grace", "2"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("train.py");
        if (!options.env) {
            options.env = launcher_environment(cluster(), m_fake.bin());
        }
        if (options.cwd.empty()) {
            options.cwd = m_job.path();
        }
        options.timeout = 60s;
        return run_launcher(cluster(), args, options);
    }

    // Both nodes failed their preflight with `reason`: exit 254, no job started anywhere.
    void expect_refused(const RunResult& result, const std::string& reason) const {
        EXPECT_EQ(result.exit_code, 254) << describe(result);
        EXPECT_EQ(result.out, "") << describe(result);
        EXPECT_EQ(result.err, summary_block({"node1: failure (" + reason + ")",
                                             "node2: failure (" + reason + ")"}))
            << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
    }

    JobDir m_job;
    FakeTorchrun m_fake;
};

TEST_F(PreflightOverSsh, AMasterAddressTheNodesCannotResolve) {
    // A name that only the launcher's machine might know (an ssh-config alias, say).
    RunResult result = launch({"--master_addr", "gpu1-alias.invalid"});
    expect_refused(result, "cannot resolve master address 'gpu1-alias.invalid' (set "
                           "--master_addr to an address every node can reach)");
}

TEST_F(PreflightOverSsh, AWorkingDirectoryTheNodesLack) {
    // /root is the client's home in the launcher's namespace only: the nodes have no such path.
    // The launcher is started from `cd /root/NAME` there, so that its $PWD names it.
    const std::string name = "preflight-job-" + std::to_string(::getpid());
    std::filesystem::create_directories(cluster().home() / name);
    Words argv = {"/bin/sh",
                  "-c",
                  "cd \"$1\" && shift && exec \"$@\"",
                  "sh",
                  "/root/" + name,
                  binary().string(),
                  "run",
                  "-H",
                  "node1,node2",
                  "--nproc_per_node",
                  "1",
                  "train.py"};
    RunOptions options;
    options.env = launcher_environment(cluster(), m_fake.bin());
    options.timeout = 60s;
    RunResult result = cluster().run_on_client(argv, options);
    std::filesystem::remove_all(cluster().home() / name);
    expect_refused(result, "no working directory '/root/" + name +
                               "' (the launcher's current directory must exist on every node: a "
                               "shared file system, or cd to a path that does)");
    // Nothing of the wrapper's own shell ("sh: 4: cd: can't cd to ...").
    EXPECT_EQ(result.err.find("cd:"), std::string::npos) << result.err;
}

TEST_F(PreflightOverSsh, TorchrunNotOnThePathThenPython) {
    // The nodes' PATH (the launcher's, passed on) has every program of /usr/bin and /usr/sbin
    // but torchrun.
    TempDir tools;
    for (const char* dir : {"/usr/bin", "/usr/sbin"}) {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            std::filesystem::path link = tools.path() / entry.path().filename();
            if (entry.path().filename() != "torchrun" &&
                !std::filesystem::exists(std::filesystem::symlink_status(link))) {
                std::filesystem::create_symlink(entry.path(), link);
            }
        }
    }
    LaunchOptions options;
    options.env = launcher_environment(cluster(), {}, {{"PATH", tools.path().string()}});
    RunResult result = launch({}, options);
    expect_refused(result, "cannot find 'torchrun' (on the node's PATH; give a Python that has "
                           "PyTorch with --python PATH, or set the node's PATH with -x PATH=...)");

    // The fake torchrun, named as an interpreter, takes the place of a venv's python (no
    // Python to run the rendezvous check with: that is RendezvousOverSsh's).
    const std::filesystem::path python = m_fake.bin() / "python";
    std::filesystem::create_symlink(m_fake.bin() / "torchrun", python);
    RunResult started = launch({"--python", python.string(), "--no-rendezvous-check"}, options);
    EXPECT_EQ(started.exit_code, 0) << describe(started);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1}));
    Words argv = m_fake.argv(1);
    ASSERT_GE(argv.size(), 3u);
    EXPECT_EQ(Words(argv.begin(), argv.begin() + 3),
              (Words{"-m", "torch.distributed.run", "--nproc_per_node=1"}));
}

TEST_F(PreflightOverSsh, AnInterfaceANodeDoesNotHave) {
    RunResult result = launch({"--network-interface", "eth0,ib7"});
    expect_refused(result, "no network interface 'ib7' (see 'ip -br link' on the node; "
                           "--network-interface names must exist on every node)");
}

TEST_F(PreflightOverSsh, ARemoteExitCodeAbove128ReadsAsAnExitCode) {
    m_fake.behave("exit 130\n", 1);
    RunResult result = launch({});
    EXPECT_EQ(result.exit_code, 130) << describe(result);
    EXPECT_TRUE(has_line(result.err, "node2: failure (exit code 130)")) << describe(result);
}

TEST_F(PreflightOverSsh, GlooAllReduceOnTwoHostsWithNetworkInterfaceAlone) {
    // Real torchrun, no GLOO_SOCKET_IFNAME in the launcher's environment: the flag sets it.
    LaunchOptions options;
    options.env = launcher_environment(cluster());
    options.cwd = m_job.path();
    options.timeout = 240s;
    Words args = {"-H", "node1,node2", "--nproc_per_node", "2", "--network-interface", "eth0",
                  // Debian's torchrun (PyTorch 1.13) fails without redirects and tee given.
                  "--extra_launch_args", "redirects=1,tee=1,monitor_interval=1",
                  (fixtures_dir() / "train_allreduce.py").string(), "--echo-env",
                  "GLOO_SOCKET_IFNAME,NCCL_SOCKET_IFNAME"};
    RunResult result = run_launcher(cluster(), args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    for (int rank = 0; rank < 4; ++rank) {
        std::string host = "node" + std::to_string(rank / 2 + 1) + ": ";
        EXPECT_TRUE(
            has_line(result.err, host + "train_allreduce: rank " + std::to_string(rank) + " done"))
            << describe(result);
    }
    EXPECT_NE(result.out.find("\"env\": {\"GLOO_SOCKET_IFNAME\": \"eth0\", "
                              "\"NCCL_SOCKET_IFNAME\": \"eth0\"}"),
              std::string::npos)
        << describe(result);
    EXPECT_NE(result.out.find("\"sum\": 10, \"world_size\": 4"), std::string::npos)
        << describe(result);
}

TEST_F(PreflightOverSsh, ANodeWithFewerGpusThanProcessesStopsTheLaunch) {
    // node1 has its 2 GPUs; one of node2's fell off the bus. Both SSH clients run the same
    // wrapper.
    install_fake_nvidia_smi(m_fake.bin(), 2);
    set_fake_gpus(m_fake.bin(), "node2", 1);
    for (const char* client : {"libssh", "openssh"}) {
        RunResult result = launch({"--nproc_per_node", "2", "--ssh-client", client});
        EXPECT_EQ(result.exit_code, 254) << client << describe(result);
        EXPECT_EQ(result.out, "") << client << describe(result);
        EXPECT_TRUE(has_line(result.err,
                             "node2: failure (2 GPUs asked (2 processes, one GPU each), 1 found "
                             "(nvidia-smi -L); give --nproc_per_node 1 or fewer, or pick the "
                             "node's GPUs with --include HOST:0,1)"))
            << client << describe(result);
        EXPECT_FALSE(has_line(result.err, "node1: success")) << client << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{}) << client;
    }
    EXPECT_TRUE(fake_nvidia_smi_ran(m_fake.bin()));
}

// Issue #39: every node reads the script, relative to the working directory, as torchrun will
// open it. One missing on node2 alone (an empty file system over its directory there) is named by
// node2, exit 254, and no job starts on any node, over both clients. With -m, or a program that
// torchrun runs without Python, nothing is checked.
TEST_F(PreflightOverSsh, AScriptMissingOnOneNodeStartsNothing) {
    write_file(m_job / "copied/train.py", "");
    HiddenOnNode hidden(cluster().sshd_pid(2), m_job / "copied");
    LaunchOptions options;
    options.env = launcher_environment(cluster(), m_fake.bin());
    options.cwd = m_job.path();
    options.timeout = 60s;
    const std::string reason = "(cannot read the script 'copied/train.py' on the node (torchrun "
                               "opens it from the working directory: copy it to every node, or "
                               "check its name))";
    for (const char* client : {"libssh", "openssh"}) {
        RunResult result = run_launcher(cluster(),
                                        {"-H", "node1,node2", "--nproc_per_node", "1",
                                         "--ssh-client", client, "copied/train.py"},
                                        options);
        EXPECT_EQ(result.exit_code, 254) << client << describe(result);
        EXPECT_EQ(result.out, "") << client << describe(result);
        EXPECT_TRUE(has_line(result.err, "node2: failure " + reason)) << client << describe(result);
        EXPECT_FALSE(has_line(result.err, "node1: failure " + reason))
            << client << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{}) << client;
    }
    for (const Words& unchecked : {Words{"-m", "copied.train"},
                                   Words{"--extra_launch_args", "no_python", "copied/train.py"}}) {
        Words args = {"-H", "node1,node2", "--nproc_per_node", "1"};
        args.insert(args.end(), unchecked.begin(), unchecked.end());
        RunResult result = run_launcher(cluster(), args, options);
        EXPECT_EQ(result.exit_code, 0) << unchecked.front() << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1})) << unchecked.front();
        for (int rank = 0; rank < 2; ++rank) { // this launch's command, on both nodes
            Words argv = m_fake.argv(rank);
            EXPECT_NE(std::find(argv.begin(), argv.end(),
                                unchecked.size() == 2 ? "copied.train" : "--no_python"),
                      argv.end())
                << rank;
        }
    }
}

TEST_F(PreflightOverSsh, ACpuOnlyClusterRunsItsJob) {
    install_fake_nvidia_smi(m_fake.bin(), 0);
    RunResult result = launch({"--nproc_per_node", "2"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1}));
    EXPECT_TRUE(fake_nvidia_smi_ran(m_fake.bin()));
}

} // namespace
} // namespace colossalai::test
