// `colossalai check -i --host/--hostfile` against real SSH test hosts (tests/e2e/ssh/cluster.sh).
// Nothing of colossalai is on the nodes: each runs the node program in its login shell. Every
// node runs the same fake interpreter, which answers with the site-packages of its own host name
// (`hostname`, per host namespace), so that nodes really differ: node3 has another PyTorch.

#include "node_trees.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

class CheckOverSsh : public SharedSshCluster<4, 64> {
protected:
    void SetUp() override {
        SharedSshCluster<4, 64>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        write_node_trees(m_trees.path(), 4);
        write_file(m_trees / "hosts", "# the checked nodes\nnode1\nnode2\n");
    }

    std::filesystem::path python() const { return m_trees / "python3"; }

    RunResult check(const Words& args, const std::filesystem::path& home = {},
                    const std::map<std::string, std::string>& variables = {}) const {
        Words argv = {binary().string(), "check",         "-i", "--python",
                      python().string(), "--ssh-timeout", "10"};
        argv.insert(argv.end(), args.begin(), args.end());
        RunOptions options;
        options.env = cluster().client_environment();
        for (const auto& [name, value] : variables) {
            (*options.env)[name] = value;
        }
        return cluster().run_on_client(argv, options, home);
    }

    TempDir m_trees;
};

TEST_F(CheckOverSsh, NodesAlikeGiveOneVerdictAndExitZero) {
    RunResult result = check({"--hostfile", (m_trees / "hosts").string()});
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("#### Installation Report: 2 nodes ####\nChecked: 2 of 2\n"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("node1   node2"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("Same PyTorch version: \u2713\n"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("Not checked"), std::string::npos) << result.out;
}

TEST_F(CheckOverSsh, NodesThatDifferAreNamedAndExitOne) {
    RunResult result = check({"--host", "node1,node3"});
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_NE(result.out.find("Same PyTorch version: x\n"), std::string::npos) << result.out;
    // Each node's column holds its own version.
    size_t row = result.out.find("PyTorch version:");
    ASSERT_NE(row, std::string::npos) << result.out;
    std::string line = result.out.substr(row, result.out.find('\n', row) - row);
    EXPECT_NE(line.find("2.1.0"), std::string::npos) << line;
    EXPECT_NE(line.find("2.2.0"), std::string::npos) << line;
}

TEST_F(CheckOverSsh, JsonHasAnObjectPerNodeAndTheVerdicts) {
    RunResult result = check({"--json", "--host", "node1,node2,node3"});
    EXPECT_EQ(result.exit_code, 1) << result.err;
    auto report = nlohmann::json::parse(result.out);
    EXPECT_EQ(report["schema_version"], 3);
    EXPECT_EQ(report["nodes"]["node1"]["environment"]["torch_version"], "2.1.0");
    EXPECT_EQ(report["nodes"]["node3"]["environment"]["torch_version"], "2.2.0");
    EXPECT_EQ(report["nodes"]["node2"]["environment"]["python_version"], "3.11.7");
    EXPECT_EQ(report["across_nodes"]["same_torch"], false);
    EXPECT_EQ(report["across_nodes"]["same_torch_cuda"], true);
    EXPECT_TRUE(report["unreachable"].empty());
    EXPECT_EQ(report["ok"], false);
}

TEST_F(CheckOverSsh, AnUnreachableNodeIsListedWithItsReasonAndExits255) {
    Finally restart([] { cluster().start_sshd(4); });
    cluster().stop_sshd(4);
    RunResult result = check({"--host", "node1,node2,node4"});
    EXPECT_EQ(result.exit_code, 255) << result.out << result.err;
    EXPECT_NE(result.out.find("Checked: 2 of 3\nNot checked:\n- node4: connection refused"),
              std::string::npos)
        << result.out;
    // The others are still reported.
    EXPECT_NE(result.out.find("Same PyTorch version: \u2713\n"), std::string::npos) << result.out;

    RunResult json = check({"--json", "--host", "node1,node4"});
    EXPECT_EQ(json.exit_code, 255);
    auto report = nlohmann::json::parse(json.out);
    EXPECT_NE(report["unreachable"]["node4"].get<std::string>().find("connection refused"),
              std::string::npos);
    EXPECT_TRUE(report["nodes"].contains("node1"));
}

TEST_F(CheckOverSsh, AnUnknownHostKeyIsRefusedWithTheFix) {
    ClientHomeOptions only_two;
    only_two.known_hosts = std::vector<int>{1, 2};
    auto home = cluster().make_home("check-known-two", only_two);
    RunResult result = check({"--host", "node1,node3"}, home);
    EXPECT_EQ(result.exit_code, 255) << result.out << result.err;
    EXPECT_NE(result.out.find("- node3: unknown host"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("ssh-keyscan"), std::string::npos) << result.out;
}

// 64 nodes at once (aliases of node1, so one configuration): every one checked, one column.
TEST_F(CheckOverSsh, SixtyFourNodesMakeOneConfiguration) {
    std::string hosts;
    for (const std::string& alias : cluster().aliases()) {
        hosts += alias + "\n";
    }
    write_file(m_trees / "hosts64", hosts);
    RunResult result = check({"--hostfile", (m_trees / "hosts64").string()});
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("Checked: 64 of 64, 1 configuration:\n1. a001, a002, "),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("a001, a002, a003 +61"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("Same PyTorch version: \u2713\n"), std::string::npos) << result.out;
}

// An editable Colossal-AI (pip install -e ., PEP 660) on a node is found as locally: its .pth file
// imports a finder whose MAPPING names the source tree, with its version and AOT kernels.
TEST_F(CheckOverSsh, AnEditableInstallOnANodeIsFollowed) {
    auto site = m_trees / "node2" / "site-packages";
    auto source = m_trees / "src" / "ColossalAI" / "colossalai";
    write_file(source / "__init__.py", "");
    write_file(source / "version.py", "__version__ = '0.4.0'\n");
    write_file(source / "_C" / "fused_optim.cpython-311-x86_64-linux-gnu.so", "");
    // setuptools writes the .pth without a final newline.
    write_file(site / "__editable__.colossalai-0.4.0.pth",
               "import __editable___colossalai_0_4_0_finder; "
               "__editable___colossalai_0_4_0_finder.install()");
    write_file(site / "__editable___colossalai_0_4_0_finder.py",
               "import sys\nMAPPING: dict[str, str] = {'colossalai': '" + source.string() +
                   "'}\nNAMESPACES = {}\n");
    RunResult result = check({"--host", "node1,node2", "--json"});
    EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.out << result.err;
    nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
    ASSERT_FALSE(report.is_discarded()) << result.out;
    EXPECT_NE(report.dump().find("\"0.4.0\""), std::string::npos) << result.out;
    RunResult text = check({"--host", "node2"});
    EXPECT_NE(text.out.find("0.4.0"), std::string::npos) << text.out << text.err;
}

// Inside an allocation `check -i` stays this machine's check (`srun colossalai check -i` checks
// every task's own node); --allocation checks the allocation's nodes, a PBS node file's repeated
// lines (one per slot) being one node each, as `colossalai run` takes them.
TEST_F(CheckOverSsh, AnAllocationsNodesAreCheckedOnlyWhenAsked) {
    RunOptions in_allocation;
    in_allocation.env = cluster().client_environment();
    (*in_allocation.env)["SLURM_JOB_NODELIST"] = "node[1-2]";
    RunResult local = cluster().run_on_client(
        {binary().string(), "check", "-i", "--python", python().string()}, in_allocation);
    EXPECT_EQ(local.out.find("nodes ####"), std::string::npos) << local.out << local.err;
    EXPECT_NE(local.out.find("#### Installation Report ####"), std::string::npos)
        << local.out << local.err;

    RunResult slurm = check({"--allocation"}, {}, {{"SLURM_JOB_NODELIST", "node[1-2]"}});
    EXPECT_EQ(slurm.exit_code, 0) << slurm.out << slurm.err;
    EXPECT_NE(slurm.err.find("colossalai: using the 2 hosts of the Slurm allocation "
                             "(SLURM_JOB_NODELIST=node[1-2])\n"),
              std::string::npos)
        << slurm.err;
    EXPECT_NE(slurm.out.find("Checked: 2 of 2\n"), std::string::npos) << slurm.out;

    write_file(m_trees / "pbs_nodefile", "node3\nnode3\nnode1\nnode1\n");
    RunResult pbs =
        check({"--allocation"}, {}, {{"PBS_NODEFILE", (m_trees / "pbs_nodefile").string()}});
    EXPECT_EQ(pbs.exit_code, 1) << pbs.out << pbs.err; // node3 has another PyTorch
    EXPECT_NE(pbs.err.find("colossalai: using the 2 hosts of the PBS job (PBS_NODEFILE="),
              std::string::npos)
        << pbs.err;
    EXPECT_NE(pbs.out.find("#### Installation Report: 2 nodes ####\nChecked: 2 of 2"),
              std::string::npos)
        << pbs.out;
    EXPECT_NE(pbs.out.find("Same PyTorch version: x"), std::string::npos) << pbs.out;

    RunResult outside = check({"--allocation"});
    EXPECT_EQ(outside.exit_code, 2) << outside.err;
    EXPECT_NE(outside.err.find("--allocation: not in a batch job's allocation"), std::string::npos)
        << outside.err;
    RunResult both = check({"--allocation", "--host", "node1"});
    EXPECT_EQ(both.exit_code, 2) << both.err;
    EXPECT_NE(both.err.find("--host and --allocation cannot be used together"), std::string::npos)
        << both.err;
}

// Every login shell a user may have (cluster.sh's users sh-bash ... sh-csh) runs the node
// program with its arguments exact: an interpreter path that each shell would read otherwise
// is the one the node reports.
TEST_F(CheckOverSsh, EveryLoginShellRunsTheCheckWithItsExactArguments) {
    std::filesystem::path odd =
        m_trees / "py it's \"q\" \\ \\' $HOME `id` !! % ~ * {a,b} #c \t \u00fc" / "python3";
    std::filesystem::create_directories(odd.parent_path());
    std::filesystem::create_symlink(python(), odd);
    for (const char* shell : {"bash", "dash", "zsh", "ksh", "fish", "tcsh", "csh"}) {
        std::string host = std::string("sh-") + shell + "@node1";
        RunOptions options;
        options.env = cluster().client_environment();
        RunResult result =
            cluster().run_on_client({binary().string(), "check", "-i", "--json", "--python",
                                     odd.string(), "--ssh-timeout", "10", "--host", host},
                                    options);
        EXPECT_EQ(result.exit_code, 0) << shell << ": " << result.out << result.err;
        auto report = nlohmann::json::parse(result.out, nullptr, false);
        ASSERT_FALSE(report.is_discarded()) << shell << ": " << result.out << result.err;
        EXPECT_EQ(report["nodes"][host]["environment"]["python"], odd.string()) << shell;
        EXPECT_EQ(report["nodes"][host]["environment"]["torch_version"], "2.1.0") << shell;
    }
}

// A login shell that runs no command: the node is not checked, and its line says why.
TEST_F(CheckOverSsh, ALoginShellThatRunsNothingIsNamed) {
    RunResult result = check({"--host", "node2,sh-nologin@node1,sh-false@node3"});
    EXPECT_EQ(result.exit_code, 255) << result.out << result.err;
    EXPECT_NE(result.out.find("- sh-nologin@node1: the login shell of sh-nologin did not run the "
                              "check (exit status 1; it printed: This account is currently not "
                              "available.)\n"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("- sh-false@node3: the login shell of sh-false did not run the "
                              "check (exit status 1, nothing printed: a login shell such as "
                              "/usr/sbin/nologin or /bin/false runs no command)\n"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("Checked: 1 of 3\n"), std::string::npos) << result.out;
}

TEST_F(CheckOverSsh, UsageErrorsConnectNowhere) {
    RunResult both = check({"--host", "node1", "--hostfile", (m_trees / "hosts").string()});
    EXPECT_EQ(both.exit_code, 2) << both.err;
    EXPECT_NE(both.err.find("--host and --hostfile cannot be used together"), std::string::npos)
        << both.err;
    RunResult bad = check({"--host", "node1,-oProxyCommand=x"});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("invalid host"), std::string::npos) << bad.err;
    RunResult missing = check({"--hostfile", (m_trees / "no-such-file").string()});
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
    EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing.err;
    RunResult port = run_colossalai({"check", "-i", "--ssh-port", "22"});
    EXPECT_EQ(port.exit_code, 2) << port.err;
    EXPECT_NE(port.err.find("--ssh-port and --ssh-timeout need --host, --hostfile or --allocation"),
              std::string::npos)
        << port.err;
    RunResult timeout = run_colossalai({"check", "-i", "--host", "node1", "--ssh-timeout", "0"});
    EXPECT_EQ(timeout.exit_code, 2) << timeout.err;
    EXPECT_NE(timeout.err.find("--ssh-timeout '0': must be from 0.1 to 3600 seconds"),
              std::string::npos)
        << timeout.err;
}

} // namespace
} // namespace colossalai::test
