// Environment control and log files over SSH: what -x, --env-file and the default
// .colossalai_env set reaches the remote nodes (recorded by the fake torchrun); a node's own
// NCCL_SOCKET_IFNAME (set by its sshd) is overwritten by the launcher's unless --env-exclude
// keeps it (Colossal-AI issue #4688); PYTHONUNBUFFERED=1 unless the launcher's environment sets
// it; --log-dir holds each remote node's bytes exactly.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

class LaunchEnvironmentOverSsh : public SharedSshCluster<2> {
protected:
    // `colossalai run -H node1,node2 ARGS... --nproc_per_node 1 train.py` in the job directory,
    // with EXTRA in the launcher's environment.
    RunResult launch(Words args, const Env& extra = {}) const {
        args.insert(args.begin(), {"-H", "node1,node2"});
        args.insert(args.end(), {"--nproc_per_node", "1", "train.py"});
        LaunchOptions options;
        options.env = launcher_environment(cluster(), m_fake.bin(), extra);
        options.cwd = m_job.path();
        options.timeout = std::chrono::seconds(60);
        return run_launcher(cluster(), args, options);
    }

    // The environment node `rank` started with (recorded from /proc/PID/environ).
    std::map<std::string, std::string> node_environment(int rank) const {
        std::map<std::string, std::string> variables;
        std::string text = read_file(m_fake.recorded(rank, "env"));
        size_t begin = 0;
        for (size_t end; (end = text.find('\0', begin)) != std::string::npos; begin = end + 1) {
            std::string entry = text.substr(begin, end - begin);
            size_t equals = entry.find('=');
            if (equals != std::string::npos) {
                variables.emplace(entry.substr(0, equals), entry.substr(equals + 1));
            }
        }
        return variables;
    }

    std::optional<std::string> variable(int rank, const std::string& name) const {
        std::map<std::string, std::string> variables = node_environment(rank);
        auto found = variables.find(name);
        return found == variables.end() ? std::nullopt : std::optional(found->second);
    }

    JobDir m_job;
    FakeTorchrun m_fake;
};

TEST_F(LaunchEnvironmentOverSsh, DashXAndTheDefaultEnvFileReachEveryNode) {
    write_file(m_job.path() / ".colossalai_env",
               "# read without --env-file\nFROM_DEFAULT=it's \"$HOME\"\nSET_BY_X=from the file\n");
    RunResult result =
        launch({"-x", "SET_BY_X=from -x", "-x", "FORWARDED"}, {{"FORWARDED", "launcher's"}});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.err.find("colossalai: setting the variables of " +
                              (m_job.path() / ".colossalai_env").string() + " on every node\n"),
              std::string::npos)
        << describe(result);
    for (int rank : {0, 1}) {
        EXPECT_EQ(variable(rank, "FROM_DEFAULT"), "it's \"$HOME\"") << rank; // nothing expanded
        EXPECT_EQ(variable(rank, "SET_BY_X"), "from -x") << rank;            // -x wins
        EXPECT_EQ(variable(rank, "FORWARDED"), "launcher's") << rank;
        // Not in the launcher's environment: the launcher's default, so that Python's output
        // streams through the SSH channel line by line.
        EXPECT_EQ(variable(rank, "PYTHONUNBUFFERED"), "1") << rank;
    }
}

TEST_F(LaunchEnvironmentOverSsh, AnEnvFileReplacesTheDefaultOne) {
    write_file(m_job.path() / ".colossalai_env", "FROM_DEFAULT=1\n");
    write_file(m_job.path() / "job.env", "FROM_FILE=yes\r\nEMPTY=\n");
    RunResult result = launch({"--env-file", "job.env"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    for (int rank : {0, 1}) {
        EXPECT_EQ(variable(rank, "FROM_FILE"), "yes") << rank;
        EXPECT_EQ(variable(rank, "EMPTY"), "") << rank;
        EXPECT_EQ(variable(rank, "FROM_DEFAULT"), std::nullopt) << rank;
    }
}

TEST_F(LaunchEnvironmentOverSsh, EnvExcludeKeepsANodesOwnValue) {
    cluster().configure_sshd(2, "SetEnv NCCL_SOCKET_IFNAME=node2-own\n");
    Finally restore([&] { cluster().configure_sshd(2, ""); });
    Env launcher = {{"NCCL_SOCKET_IFNAME", "launcher-eth"}, {"NCCL_DEBUG", "INFO"}};

    // Without the flag, the launcher's value overwrites the node's own.
    RunResult result = launch({}, launcher);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(variable(1, "NCCL_SOCKET_IFNAME"), "launcher-eth");

    result = launch({"--env-exclude", "NCCL_SOCKET_*", "-x", "NCCL_DEBUG=WARN"}, launcher);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(variable(0, "NCCL_SOCKET_IFNAME"), std::nullopt); // node1 has none of its own
    EXPECT_EQ(variable(1, "NCCL_SOCKET_IFNAME"), "node2-own");
    for (int rank : {0, 1}) {
        EXPECT_EQ(variable(rank, "NCCL_DEBUG"), "WARN") << rank;
    }

    // The user's own PYTHONUNBUFFERED reaches the nodes as it is.
    launcher["PYTHONUNBUFFERED"] = "0";
    result = launch({}, launcher);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    for (int rank : {0, 1}) {
        EXPECT_EQ(variable(rank, "PYTHONUNBUFFERED"), "0") << rank;
    }
}

// 1 MiB of lines and a last line without a newline on stdout, a line on stderr: each node's
// files in --log-dir (on the launcher's machine) hold exactly its bytes, not the prefixed lines.
TEST_F(LaunchEnvironmentOverSsh, LogDirHoldsEachNodesBytes) {
    m_fake.behave("yes \"rank $rank line\" | head -c 1048576\n"
                  "printf 'last of %s' \"$rank\"\n"
                  "echo \"warning from $rank\" >&2\n");
    RunResult result = launch({"--log-dir", "logs/run 1"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    std::filesystem::path dir = m_job.path() / "logs/run 1";
    for (int rank : {0, 1}) {
        std::string line = "rank " + std::to_string(rank) + " line\n";
        std::string expected;
        while (expected.size() < 1048576) {
            expected += line;
        }
        expected.resize(1048576);
        expected += "last of " + std::to_string(rank);
        std::string stem = std::to_string(rank) + "-node" + std::to_string(rank + 1);
        std::string out = read_file(dir / (stem + ".out"));
        EXPECT_EQ(out.size(), expected.size()) << stem;
        EXPECT_TRUE(out == expected) << stem;
        EXPECT_EQ(read_file(dir / (stem + ".err")), "warning from " + std::to_string(rank) + "\n");
    }
    EXPECT_NE(result.err.find("colossalai: the nodes' output is also in " + dir.string() + "/\n"),
              std::string::npos)
        << describe(result);
}

// Issue #24: inside an allocation (the variables a batch step has), the launcher's own Slurm
// task and node identity reaches no other node, so node2 is not told it is node 0 on the batch
// host; the job's variables reach every node. The dry run says what each node does not get.
TEST_F(LaunchEnvironmentOverSsh, TheLaunchersSlurmIdentityReachesNoOtherNode) {
    const Env allocation = {{"SLURM_JOB_ID", "77"},
                            {"SLURM_JOB_NODELIST", "node[1-2]"},
                            {"SLURM_NNODES", "2"},
                            {"SLURM_NODEID", "0"},
                            {"SLURM_PROCID", "0"},
                            {"SLURM_LOCALID", "0"},
                            {"SLURMD_NODENAME", "client"},
                            {"SLURM_TASK_PID", "4242"},
                            {"SLURM_STEP_ID", "4294967291"},
                            {"SLURM_GTIDS", "0"},
                            {"SLURM_CPU_BIND", "quiet,none"},
                            {"SLURM_TOPOLOGY_ADDR", "client"}};
    RunResult result = launch({}, allocation);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    for (int rank : {0, 1}) {
        EXPECT_EQ(variable(rank, "SLURM_JOB_ID"), "77") << rank;
        EXPECT_EQ(variable(rank, "SLURM_JOB_NODELIST"), "node[1-2]") << rank;
        for (const char* name :
             {"SLURM_NODEID", "SLURM_PROCID", "SLURM_LOCALID", "SLURMD_NODENAME", "SLURM_TASK_PID",
              "SLURM_STEP_ID", "SLURM_GTIDS", "SLURM_CPU_BIND", "SLURM_TOPOLOGY_ADDR"}) {
            EXPECT_EQ(variable(rank, name), std::nullopt) << rank << " " << name;
        }
    }
    RunResult dry = launch({"--dry-run"}, allocation);
    ASSERT_EQ(dry.exit_code, 0) << describe(dry);
    EXPECT_EQ(lines_starting_with(dry.out, "    env not passed (the launcher's own Slurm"),
              Words(2, "    env not passed (the launcher's own Slurm task and node; the node has "
                       "its own): SLURMD_NODENAME SLURM_CPU_BIND SLURM_GTIDS SLURM_LOCALID "
                       "SLURM_NODEID SLURM_PROCID SLURM_STEP_ID SLURM_TASK_PID "
                       "SLURM_TOPOLOGY_ADDR"));
}

} // namespace
} // namespace colossalai::test
