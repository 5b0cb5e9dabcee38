// `colossalai run` over SSH with Debian's real torchrun: a gloo all-reduce of 4 ranks on two test
// hosts, started by the launcher from the client namespace. Arguments, environment and working
// directory arrive intact; every line is prefixed with its host; the summary ends the job.

#include "fake_gpus.hpp"
#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::test {
namespace {

class LaunchTorchrunOverSsh : public SharedSshCluster<2> {};

TEST_F(LaunchTorchrunOverSsh, GlooAllReduceOnTwoHostsWithArgumentsEnvironmentAndCwd) {
    // A directory name with a space; the script is given relative to it, so the nodes find it
    // only in the launcher's directory. It reports its cwd, then runs the real fixture.
    TempDir dir;
    const std::filesystem::path job = dir / "job dir";
    const std::string fixture = (fixtures_dir() / "train_allreduce.py").string();
    write_file(job / "train.py",
               "import os, runpy, sys\n"
               "sys.stderr.write('train: rank %s cwd %s\\n' % (os.environ['RANK'], os.getcwd()))\n"
               "sys.stderr.flush()\n"
               "sys.argv[0] = " +
                   json_string(fixture) +
                   "\n"
                   "runpy.run_path(sys.argv[0], run_name='__main__')\n");

    const std::string note = "it's \"quoted\" $HOME and  two  spaces `hostname`";
    const Words script_args = {
        "--echo-env", "GLOO_SOCKET_IFNAME,TRAIN_NOTE", "two words",     "it's",
        "$HOME",      "a;b `echo pwned` $(id)",        "--master_port", "1"};
    Words args = {"-H",      "node1,node2",         "--nproc_per_node",
                  "2",       "--extra_launch_args", "redirects=1,tee=1,monitor_interval=1",
                  "train.py"};
    args.insert(args.end(), script_args.begin(), script_args.end());

    LaunchOptions options;
    // The launcher's environment goes to the nodes: gloo needs the interface there.
    options.env =
        launcher_environment(cluster(), {}, {{"GLOO_SOCKET_IFNAME", "eth0"}, {"TRAIN_NOTE", note}});
    options.cwd = job;
    options.timeout = std::chrono::seconds(240);
    RunResult result = run_launcher(cluster(), args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);

    std::string argv_json = "[";
    for (const std::string& word : script_args) {
        argv_json += (argv_json.size() > 1 ? ", " : "") + json_string(word);
    }
    argv_json += "]";
    Words expected_out;
    for (int k = 1; k <= 2; ++k) {
        for (int local = 0; local < 2; ++local) {
            int rank = 2 * (k - 1) + local;
            expected_out.push_back(
                "node" + std::to_string(k) + ": [default" + std::to_string(local) +
                "]:{\"argv\": " + argv_json +
                ", \"env\": {\"GLOO_SOCKET_IFNAME\": \"eth0\", \"TRAIN_NOTE\": " +
                json_string(note) + "}, \"host\": \"node" + std::to_string(k) +
                "\", \"local_rank\": " + std::to_string(local) +
                ", \"rank\": " + std::to_string(rank) + ", \"sum\": 10, \"world_size\": 4}");
        }
    }
    EXPECT_EQ(sorted(lines_of(result.out)), sorted(expected_out)) << describe(result);

    // stderr: the nodes' lines (torchrun's own warnings among them), each prefixed with its
    // host, then the summary block and nothing else.
    const std::string summary = summary_block({"node1: success", "node2: success"});
    // redirects and tee avoid 0 and 3: the nodes read no pair, and no notice comes.
    EXPECT_EQ(result.err.find("stops before any worker starts"), std::string::npos);
    ASSERT_GE(result.err.size(), summary.size()) << describe(result);
    EXPECT_EQ(result.err.substr(result.err.size() - summary.size()), summary) << describe(result);
    Words node_lines = lines_of(result.err.substr(0, result.err.size() - summary.size()));
    for (const std::string& line : node_lines) {
        EXPECT_TRUE(line.rfind("node1: ", 0) == 0 || line.rfind("node2: ", 0) == 0) << line;
    }
    for (int rank = 0; rank < 4; ++rank) {
        std::string host = "node" + std::to_string(rank / 2 + 1) + ": ";
        EXPECT_TRUE(has_line(result.err,
                             host + "train: rank " + std::to_string(rank) + " cwd " + job.string()))
            << describe(result);
        EXPECT_TRUE(
            has_line(result.err, host + "train_allreduce: rank " + std::to_string(rank) + " done"))
            << describe(result);
    }
}

// Issue #40: Debian's torchrun (PyTorch 1.13 on Python 3.11) is a known-broken pair on both test
// hosts. Each node's preflight reads its own versions (the launcher's say nothing about a remote
// node's), and the launcher names each node once in a notice before anything starts, over both
// clients; the command is not changed (torchrun then stops as it does). A fake torchrun (a sh
// script: no Python to read) and redirects/tee that avoid 0 and 3 earn none.
TEST_F(LaunchTorchrunOverSsh, ABrokenPairOnEachNodeIsNamedInANotice) {
    TempDir dir;
    const std::string notice = ": PyTorch 1.13 on Python 3.11: torchrun stops before any worker "
                               "starts (torch's to_std loses --redirects/--tee 0 and 3 on Python "
                               "3.11+, fixed in PyTorch 2.0); --extra_launch_args "
                               "redirects=9:1,tee=9:1 avoids it, leaving the streams untouched, "
                               "for up to 9 processes per node";
    LaunchOptions options;
    options.env = launcher_environment(cluster(), {}, {{"GLOO_SOCKET_IFNAME", "eth0"}});
    options.cwd = dir.path();
    options.timeout = std::chrono::seconds(240);
    for (const char* client : {"libssh", "openssh"}) {
        RunResult result =
            run_launcher(cluster(),
                         {"-H", "node1,node2", "--nproc_per_node", "1", "--ssh-client", client,
                          (fixtures_dir() / "train_allreduce.py").string()},
                         options);
        ASSERT_FALSE(result.timed_out) << describe(result);
        for (const char* node : {"node1", "node2"}) {
            std::string line = "colossalai: " + std::string(node) + notice;
            EXPECT_TRUE(has_line(result.err, line)) << client << describe(result);
            EXPECT_EQ(result.err.find(line), result.err.rfind(line)) << client; // once
        }
        // Before the summary; torchrun's own failure follows (its command was not changed).
        EXPECT_LT(result.err.find(notice), result.err.find("====== Training on All Nodes"))
            << describe(result);
        EXPECT_NE(result.exit_code, 0) << describe(result);
    }
    FakeTorchrun fake;
    fake.behave("exit 0\n");
    write_file(dir / "train.py", "");
    RunResult faked = run_fake_job(
        cluster(), fake, {"-H", "node1,node2", "--nproc_per_node", "1", "train.py"}, dir.path());
    EXPECT_EQ(faked.exit_code, 0) << describe(faked);
    EXPECT_EQ(faked.err.find("stops before any worker starts"), std::string::npos)
        << describe(faked);
}

// GPU indices in DeepSpeed's form over SSH: each remote node gets its own CUDA_VISIBLE_DEVICES
// (over the launcher's, which a warning names) and process count; torchrun's ranks and world
// size follow the counts (1 + 2 = 3).
TEST_F(LaunchTorchrunOverSsh, GpuIndicesGiveEachRemoteNodeItsDevicesAndCount) {
    TempDir dir;
    write_file(dir / "hosts", "node1 slots=2\nnode2 slots=2\n");
    Words args = {"--hostfile",
                  "hosts",
                  "--include",
                  "node1:1@node2",
                  "--extra_launch_args",
                  "redirects=1,tee=1,monitor_interval=1",
                  (fixtures_dir() / "train_allreduce.py").string(),
                  "--echo-env",
                  "CUDA_VISIBLE_DEVICES,LOCAL_WORLD_SIZE"};
    // The GPU preflight asks node2 for 2 GPUs (indices 0,1): the fake nvidia-smi has them.
    install_fake_nvidia_smi(dir / "gpus", 2);
    LaunchOptions options;
    options.env = launcher_environment(
        cluster(), dir / "gpus", {{"GLOO_SOCKET_IFNAME", "eth0"}, {"CUDA_VISIBLE_DEVICES", "7"}});
    options.cwd = dir.path();
    options.timeout = std::chrono::seconds(240);
    RunResult result = run_launcher(cluster(), args, options);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    auto record = [](int node, int local, int rank, const std::string& devices, int count) {
        return "node" + std::to_string(node) + ": [default" + std::to_string(local) +
               "]:{\"argv\": [\"--echo-env\", \"CUDA_VISIBLE_DEVICES,LOCAL_WORLD_SIZE\"], "
               "\"env\": {\"CUDA_VISIBLE_DEVICES\": \"" +
               devices + "\", \"LOCAL_WORLD_SIZE\": \"" + std::to_string(count) +
               "\"}, \"host\": \"node" + std::to_string(node) +
               "\", \"local_rank\": " + std::to_string(local) +
               ", \"rank\": " + std::to_string(rank) + ", \"sum\": 6, \"world_size\": 3}";
    };
    Words expected = {record(1, 0, 0, "1", 1), record(2, 0, 1, "0,1", 2),
                      record(2, 1, 2, "0,1", 2)};
    EXPECT_EQ(sorted(lines_of(result.out)), sorted(expected)) << describe(result);
    EXPECT_TRUE(result.err.starts_with(
        "colossalai: warning: the launcher's CUDA_VISIBLE_DEVICES=7 is not passed on: each node's "
        "GPUs are those --include or --exclude select (indices of the node's own GPUs)\n"))
        << describe(result);
    const std::string summary = summary_block({"node1: success", "node2: success"});
    EXPECT_TRUE(result.err.ends_with(summary)) << describe(result);
}

} // namespace
} // namespace colossalai::test
