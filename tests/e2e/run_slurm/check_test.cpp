// `colossalai check -i --launcher slurm` against the real test Slurm cluster: the node program
// runs on every node as one task of one srun step, and the report is the SSH cluster check's
// (tests/e2e/cluster_check): the same text, JSON schema, cross-node verdicts and exit codes.
// Nothing of colossalai is on the nodes' PATH: each runs the same fake interpreter, which answers
// with the site-packages of its own host name (`hostname`: node1, node2 per namespace), so that
// the nodes can differ. Each node's object in the JSON is the local report that `colossalai check
// -i --json` gives when srun runs it on that node.

#include "slurm_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

class SlurmCheck : public SharedSlurmCluster<2> {
protected:
    void SetUp() override {
        SharedSlurmCluster<2>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        write_per_host_python(python(), m_trees.path());
        for (int k = 1; k <= 2; ++k) {
            write_torch(k, "2.1.0+cu");
        }
        write_file(m_trees / "hosts", "# the checked nodes\nnode2\nnode1\n");
    }

    void write_torch(int node, const std::string& version) const {
        auto site = m_trees / ("node" + std::to_string(node)) / "site-packages";
        write_file(site / "torch/__init__.py", "");
        write_file(site / "torch/version.py",
                   "__version__ = '" + version + "'\ncuda = '" + system_cuda_release() + "'\n");
    }

    std::filesystem::path python() const { return m_trees / "python3"; }

    // The launcher's environment without any allocation of this test process's.
    static std::map<std::string, std::string> environment() {
        std::map<std::string, std::string> env = current_environment();
        std::erase_if(env, [](const auto& variable) {
            return variable.first.rfind("SLURM_", 0) == 0 || variable.first == "PBS_NODEFILE";
        });
        return env;
    }

    // `colossalai check -i --python FAKE ARGS...` on the controller, after `before` (salloc,
    // srun, env).
    RunResult check(const Words& args, const Words& before = {}) const {
        Words argv = before;
        argv.insert(argv.end(), {binary().string(), "check", "-i", "--python", python().string()});
        argv.insert(argv.end(), args.begin(), args.end());
        RunOptions options;
        options.env = environment();
        options.timeout = std::chrono::seconds(120);
        return cluster().run_on_controller(argv, options);
    }

    TempDir m_trees;
};

TEST_F(SlurmCheck, NodesAlikeGiveOneVerdictAndExitZero) {
    RunResult result = check({"--launcher", "slurm", "--hostfile", (m_trees / "hosts").string()});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("#### Installation Report: 2 nodes ####\nChecked: 2 of 2\n"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("node2   node1"), std::string::npos) << result.out; // given order
    EXPECT_NE(result.out.find("Same PyTorch version: \u2713\n"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("Not checked"), std::string::npos) << result.out;
}

// Each node's column and object are its own: node2's PyTorch differs, the verdict is x, exit 1.
TEST_F(SlurmCheck, NodesThatDifferAreNamedAndExitOne) {
    write_torch(2, "2.2.0+cu");
    RunResult result = check({"--launcher", "slurm", "--host", "node1,node2"});
    EXPECT_EQ(result.exit_code, 1) << describe(result);
    EXPECT_NE(result.out.find("Same PyTorch version: x\n"), std::string::npos) << result.out;
    size_t row = result.out.find("PyTorch version:");
    ASSERT_NE(row, std::string::npos) << result.out;
    std::string line = result.out.substr(row, result.out.find('\n', row) - row);
    EXPECT_LT(line.find("2.1.0"), line.find("2.2.0")) << line; // node1's column, then node2's

    RunResult json = check({"--launcher", "slurm", "--host", "node1,node2", "--json"});
    EXPECT_EQ(json.exit_code, 1) << describe(json);
    auto report = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << json.out;
    EXPECT_EQ(report["schema_version"], 3);
    EXPECT_EQ(report["nodes"]["node1"]["environment"]["torch_version"], "2.1.0");
    EXPECT_EQ(report["nodes"]["node2"]["environment"]["torch_version"], "2.2.0");
    EXPECT_EQ(report["across_nodes"]["same_torch"], false);
    EXPECT_EQ(report["across_nodes"]["same_torch_cuda"], true);
    EXPECT_TRUE(report["unreachable"].empty());
    EXPECT_EQ(report["ok"], false);
}

// A node's object is the report of `colossalai check -i --json` run on that node (srun -w), but
// for the system NCCL library's file name, which the node program and the local probe pick
// differently among the same files (as over SSH).
TEST_F(SlurmCheck, EachNodesObjectIsTheLocalReportOfThatNode) {
    RunResult cluster_json = check({"--launcher", "slurm", "--host", "node2,node1", "--json"});
    ASSERT_EQ(cluster_json.exit_code, 0) << describe(cluster_json);
    auto report = nlohmann::json::parse(cluster_json.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << cluster_json.out;
    for (const std::string node : {"node1", "node2"}) {
        RunResult local = check({"--json"}, {"srun", "-N1", "-w", node});
        ASSERT_EQ(local.exit_code, 0) << node << ": " << describe(local);
        auto expected = nlohmann::json::parse(local.out, nullptr, false);
        ASSERT_FALSE(expected.is_discarded()) << local.out;
        nlohmann::json got = report["nodes"][node];
        for (nlohmann::json* object : {&expected, &got}) {
            (*object)["environment"].erase("system_nccl_library");
        }
        EXPECT_EQ(got, expected) << node << "\n" << got.dump(2) << "\n" << expected.dump(2);
    }
}

// Inside an allocation, --launcher slurm alone checks the allocation's nodes.
TEST_F(SlurmCheck, InsideAnAllocationItsNodesAreChecked) {
    RunResult result = check({"--launcher", "slurm"}, {"salloc", "-N2"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.err.find("colossalai: using the 2 hosts of the Slurm allocation "
                              "(SLURM_JOB_NODELIST=node[1-2])\n"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.out.find("Checked: 2 of 2\n"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("node1   node2"), std::string::npos) << result.out;
}

// A node srun cannot run on: every node the step would have run on is not checked, with srun's
// own words, and the exit status is 255 (as for a host SSH cannot reach); the report and the JSON
// are still whole.
TEST_F(SlurmCheck, ANodeSrunCannotReachIsNotCheckedWithSrunsReasonAndExits255) {
    RunResult result = check({"--launcher", "slurm", "--host", "node1,node9"});
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_NE(result.out.find("Checked: 0 of 2\nNot checked:\n- node1: srun started no check "
                              "there (srun exited with status 1: srun: error: "),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("- node9: srun started no check there"), std::string::npos)
        << result.out;

    RunResult json = check({"--launcher", "slurm", "--host", "node9", "--json"});
    EXPECT_EQ(json.exit_code, 255) << describe(json);
    auto report = nlohmann::json::parse(json.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << json.out;
    EXPECT_NE(report["unreachable"]["node9"].get<std::string>().find("srun: error: "),
              std::string::npos)
        << json.out;
    EXPECT_TRUE(report["nodes"].empty());
    EXPECT_EQ(report["ok"], false);
}

// Without srun on PATH no node is checked: each says why, exit 255.
TEST_F(SlurmCheck, WithoutSrunNoNodeIsCheckedAndItSaysWhy) {
    RunResult result =
        check({"--launcher", "slurm", "--host", "node1,node2"}, {"env", "PATH=/nonexistent"});
    EXPECT_EQ(result.exit_code, 255) << describe(result);
    EXPECT_NE(result.out.find("- node1: cannot run srun: No such file or directory\n- node2: "
                              "cannot run srun: No such file or directory\n"),
              std::string::npos)
        << result.out;
}

// Ctrl-C while the nodes' probes hang: srun is killed with its process group, the check dies of
// the signal, and Slurm ends the step: no probe is left on any node.
TEST_F(SlurmCheck, CtrlCEndsTheStepOnEveryNode) {
    const std::string marker = "2236.07";
    write_file(m_trees / "hang" / "python3", "#!/bin/sh\nexec sleep " + marker + "\n", 0755);
    RunOptions options;
    options.env = environment();
    (*options.env)["COLOSSALAI_PROBE_TIMEOUT_MS"] = "600000";
    Background running(
        cluster().controller_command({binary().string(), "check", "-i", "--python",
                                      (m_trees / "hang" / "python3").string(), "--launcher",
                                      "slurm", "--host", "node1,node2"}),
        options, m_trees / "out", m_trees / "err");
    ASSERT_TRUE(eventually([&] { return cluster().processes_with_marker(marker).size() >= 2; },
                           std::chrono::seconds(30)))
        << read_file(m_trees / "err");
    running.signal(SIGINT);
    std::optional<int> status = running.wait(std::chrono::seconds(30));
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGINT) << *status;
    EXPECT_TRUE(eventually([&] { return cluster().processes_with_marker(marker).empty(); },
                           std::chrono::seconds(30)))
        << cluster().processes_with_marker(marker).size() << " probe processes left";
    // slurmctld lists the step until it has processed the step's end, which comes after the
    // processes are gone (seen once on a loaded machine: the probes gone, the step still listed).
    RunResult queue;
    EXPECT_TRUE(eventually(
        [&] {
            queue = cluster().run_on_controller({"squeue", "--steps", "--noheader"});
            return queue.out.empty();
        },
        std::chrono::seconds(30)))
        << queue.out;
}

// Outside an allocation, with no node named: a usage error, no srun.
TEST_F(SlurmCheck, OutsideAnAllocationTheNodesMustBeNamed) {
    RunResult result = check({"--launcher", "slurm"});
    EXPECT_EQ(result.exit_code, 2) << describe(result);
    EXPECT_NE(result.err.find("Error: --launcher slurm needs the nodes: --host or --hostfile, or "
                              "run it inside a Slurm allocation (salloc, sbatch)\n"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
}

} // namespace
} // namespace colossalai::test
