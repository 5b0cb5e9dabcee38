// `colossalai check -i --launcher mpirun` against Debian's real Open MPI 4.1 and MPICH 4.0
// (Hydra) over the SSH test hosts (tests/e2e/ssh/cluster.sh): one mpirun runs the node program as
// a task per node, in the hosts' order, and each node's answer is its own, read by the rank its
// task's lines carry. Every node runs the same fake interpreter, which answers with the
// site-packages of its own host name, so that nodes really differ: node3 has another PyTorch.

#include "node_trees.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

// Which MPI, and what it needs here (as tests/e2e/run_mpirun): Open MPI refuses root without its
// two variables, and both reach the test hosts over ssh.
struct CheckMpi {
    std::string name;
    std::string program;
    std::string args;
};

void PrintTo(const CheckMpi& mpi, std::ostream* out) {
    *out << mpi.name;
}

class CheckThroughMpirun : public SharedSshCluster<4>,
                           public ::testing::WithParamInterface<CheckMpi> {
protected:
    void SetUp() override {
        SharedSshCluster<4>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        write_node_trees(m_trees.path(), 4);
    }

    std::filesystem::path python() const { return m_trees / "python3"; }

    RunResult check(const Words& args,
                    const std::map<std::string, std::string>& variables = {}) const {
        Words argv = {binary().string(),  "check",         "-i",           "--python",
                      python().string(),  "--launcher",    "mpirun",       "--mpirun",
                      GetParam().program, "--mpirun-args", GetParam().args};
        argv.insert(argv.end(), args.begin(), args.end());
        RunOptions options;
        options.env = cluster().client_environment();
        (*options.env)["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
        (*options.env)["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
        for (const auto& [name, value] : variables) {
            (*options.env)[name] = value;
        }
        options.timeout = std::chrono::seconds(120);
        return cluster().run_on_client(argv, options);
    }

    TempDir m_trees;
};

// Each node's column is its own answer, whatever order mpirun placed and printed the tasks in:
// node3, first in the hosts' order (rank 0), has its own PyTorch, and the verdict names the
// difference (exit 1).
TEST_P(CheckThroughMpirun, EachNodeAnswersForItselfInTheHostsOrder) {
    RunResult result = check({"--json", "--host", "node3,node1,node2"});
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    auto report = nlohmann::json::parse(result.out);
    EXPECT_EQ(report["nodes"]["node3"]["environment"]["torch_version"], "2.2.0");
    EXPECT_EQ(report["nodes"]["node1"]["environment"]["torch_version"], "2.1.0");
    EXPECT_EQ(report["nodes"]["node2"]["environment"]["torch_version"], "2.1.0");
    EXPECT_EQ(report["nodes"]["node2"]["environment"]["python_version"], "3.11.7");
    EXPECT_EQ(report["across_nodes"]["same_torch"], false);
    EXPECT_TRUE(report["unreachable"].empty()) << result.out;

    RunResult text = check({"--host", "node1,node2"});
    EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
    EXPECT_NE(text.out.find("#### Installation Report: 2 nodes ####\nChecked: 2 of 2\n"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("Same PyTorch version: \u2713\n"), std::string::npos) << text.out;
}

// A node whose sshd is down starts no task: it is named, with how mpirun ended, and the check
// exits 255 (as over SSH and Slurm). Open MPI's mpirun ends at once; Hydra's mpiexec waits for
// the node for ever, so the check's deadline stops it (the probe timeout, 1 s here, times four,
// plus 30 s). Whether the other node's task answered first is each MPI's business (Open MPI ends
// the whole job; Hydra lets it answer): either is honest.
TEST_P(CheckThroughMpirun, ANodeWhoseSshdIsDownIsNamedWithMpirunsEnd) {
    Finally restart([] { cluster().start_sshd(4); });
    cluster().stop_sshd(4);
    RunResult result = check({"--host", "node1,node4"}, {{"COLOSSALAI_PROBE_TIMEOUT_MS", "1000"}});
    EXPECT_EQ(result.exit_code, 255) << result.out << result.err;
    EXPECT_NE(result.out.find("Not checked:"), std::string::npos) << result.out;
    std::string end = GetParam().name == "Mpich" ? "no answer within 34 s; mpirun was stopped"
                                                 : "mpirun exited with status ";
    EXPECT_NE(result.out.find("- node4: mpirun started no check there (" + end), std::string::npos)
        << result.out;
}

INSTANTIATE_TEST_SUITE_P(Mpi, CheckThroughMpirun,
                         ::testing::Values(CheckMpi{"OpenMpi", "mpirun.openmpi",
                                                    "--mca plm_rsh_agent ssh --mca btl self,tcp"},
                                           CheckMpi{"Mpich", "mpiexec.mpich", "-launcher ssh"}),
                         [](const auto& info) { return info.param.name; });

} // namespace
} // namespace colossalai::test
