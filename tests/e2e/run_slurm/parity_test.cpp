// Issue #24: output through srun equals output over SSH, byte for byte, for the same job: lines
// ending in \r\n, \r progress bars, NUL, invalid UTF-8, lines far longer than Slurm's messages,
// no final newline; on both streams, in pipes, on a terminal and in --log-dir files. The same
// fake torchrun runs on the SSH test hosts (tests/e2e/ssh/cluster.sh) and as the tasks of the
// test Slurm cluster; both name their hosts node1 and node2, so even the summaries agree.

#include "capture.hpp"
#include "lines.hpp"
#include "slurm_cluster.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

// What a training job writes that srun's --label used to change (see src/slurm/relay.hpp).
// `bars`: with progress bars and a line past the 32 KiB that a prefixed line is held whole (past
// it, where a line is cut into `host (cont.): ` pieces depends on how the bytes were read, on
// every transport: docs/design.md, "Output"), for the tests that see the bytes themselves.
std::string awkward_bytes(bool bars) {
    std::string bytes = "epoch 1 loss 0.25\r\n";
    if (bars) {
        bytes += "  0%|          |\r 50%|#####     |\r100%|##########|\n";
    }
    bytes += std::string("a NUL \0 inside\n", 15) + "invalid UTF-8 \xff\xfe\xc3(\n" + "\x1e" +
             "colossalai-task-exit 0\n";    // the launcher's own marker, written by the job
    bytes += std::string(5000, 'L') + "\n"; // five of Slurm's 1024-byte messages
    // Eighty and sixty of the relay's frames.
    bytes += std::string(bars ? 40000 : 30000, 'M') + "\r\n";
    return bytes + "the last line has no newline";
}

class TransportParity : public SharedSlurmCluster<2> {
protected:
    static void SetUpTestSuite() {
        SharedSlurmCluster<2>::SetUpTestSuite();
        if (can_run_ssh_cluster()) {
            try {
                s_ssh = std::make_unique<SshCluster>(2);
            } catch (const std::exception& error) {
                s_ssh_error = error.what();
            }
        }
    }
    static void TearDownTestSuite() {
        s_ssh.reset();
        SharedSlurmCluster<2>::TearDownTestSuite();
    }
    void SetUp() override {
        SharedSlurmCluster<2>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        ASSERT_NE(s_ssh, nullptr) << "SSH hosts bring-up failed: " << s_ssh_error;
        install_fake_torchrun(m_dir.path());
        std::filesystem::create_directories(job());
        write_file(job() / "t.py", ""); // each node's preflight reads the script
        write_file(m_dir.path() / "bars.out", awkward_bytes(true));
        write_file(m_dir.path() / "bars.err", awkward_bytes(true) + "\r");
        write_file(m_dir.path() / "lines.out", awkward_bytes(false));
        write_file(m_dir.path() / "lines.err", "warning: " + awkward_bytes(false));
    }

    std::filesystem::path job() const { return m_dir.path() / "job"; }
    void behave(const std::string& script) const {
        write_file(m_dir.path() / "behave" / "all.sh", script);
    }

    // `colossalai run ARGS...` as each transport needs it: in the SSH hosts' client namespace, or
    // on the Slurm controller with --launcher slurm; the fake torchrun first on PATH (both share
    // this file system).
    Words command(bool slurm, const Words& args) const {
        Words argv = {binary().string(), "run"};
        if (slurm) {
            argv.insert(argv.end(), {"--launcher", "slurm"});
        }
        argv.insert(argv.end(), args.begin(), args.end());
        return slurm ? cluster().controller_command(argv) : s_ssh->client_command(argv);
    }
    RunOptions options(bool slurm) const {
        RunOptions options;
        options.env = slurm ? current_environment() : s_ssh->client_environment();
        (*options.env)["PATH"] = (m_dir.path() / "bin").string() + ":/usr/bin:/bin";
        options.cwd = job();
        options.timeout = 120s;
        return options;
    }
    RunResult launch(bool slurm, const Words& args) const {
        return run(command(slurm, args), options(slurm));
    }

    static inline std::unique_ptr<SshCluster> s_ssh;
    static inline std::string s_ssh_error;
    TempDir m_dir{"colossalai-parity"};
};

// One node: the launcher's output is the job's bytes, raw, in a pipe.
TEST_F(TransportParity, OneNodeInAPipeGetsTheJobsBytes) {
    behave("out bars.out\nerr bars.err\n");
    std::map<bool, RunResult> results;
    for (bool slurm : {false, true}) {
        results[slurm] = launch(slurm, {"--host", "node1", "--nproc_per_node", "1", "t.py"});
        ASSERT_EQ(results[slurm].exit_code, 0) << slurm << describe(results[slurm]);
    }
    EXPECT_EQ(results[true].out, awkward_bytes(true));
    EXPECT_EQ(results[true].out, results[false].out);
    EXPECT_EQ(results[true].err, results[false].err); // the job's bytes, then the same summary
    EXPECT_EQ(results[true].err.substr(0, awkward_bytes(true).size() + 1),
              awkward_bytes(true) + "\r");
}

// Two nodes: each node's prefixed lines in the launcher's pipe, and its --log-dir files.
TEST_F(TransportParity, TwoNodesPrefixedAndInLogFiles) {
    behave("out lines.out\nerr lines.err\n");
    std::map<bool, RunResult> results;
    for (bool slurm : {false, true}) {
        std::string logs = slurm ? "slurm-logs" : "ssh-logs";
        results[slurm] = launch(
            slurm, {"--host", "node1,node2", "--nproc_per_node", "1", "--log-dir", logs, "t.py"});
        ASSERT_EQ(results[slurm].exit_code, 0) << slurm << describe(results[slurm]);
        for (const char* stem : {"0-node1", "1-node2"}) {
            EXPECT_EQ(read_file(job() / logs / (std::string(stem) + ".out")), awkward_bytes(false))
                << slurm << stem;
            EXPECT_EQ(read_file(job() / logs / (std::string(stem) + ".err")),
                      "warning: " + awkward_bytes(false))
                << slurm << stem;
        }
    }
    // The nodes' lines interleave as they arrive; each node's own are the same, in order.
    for (const char* name : {"node1", "node2"}) {
        std::string host = name;
        auto own = [&](const std::string& text) {
            std::string kept;
            for (const std::string& line : lines_of(text)) {
                if (line.rfind(host + ": ", 0) == 0 || line.rfind(host + " (cont.): ", 0) == 0) {
                    kept += line + "\n";
                }
            }
            return kept;
        };
        EXPECT_EQ(own(results[true].out), own(results[false].out)) << host;
        EXPECT_EQ(own(results[true].err), own(results[false].err)) << host;
        EXPECT_NE(own(results[true].out).find(host + ": epoch 1 loss 0.25\r\n"), std::string::npos);
        EXPECT_EQ(own(results[true].out).find(host + ": epoch 1 loss 0.25\n"), std::string::npos)
            << "a line ending in \\r\\n arrived twice";
    }
}

// One node on a terminal: the bars as the job drew them.
TEST_F(TransportParity, OneNodeOnATerminal) {
    behave("out bars.out\n");
    std::map<bool, std::string> seen;
    for (bool slurm : {false, true}) {
        OutputCapture output(true);
        Background launcher(command(slurm, {"--host", "node1", "--nproc_per_node", "1", "t.py"}),
                            options(slurm), output.write_fd(), output.write_fd());
        output.close_write();
        output.read_to_end();
        EXPECT_EQ(exit_code_of(launcher, 60s), 0) << output.text();
        seen[slurm] = output.text();
    }
    EXPECT_EQ(seen[true], seen[false]);
    EXPECT_NE(seen[true].find(" 50%|#####     |\r100%|"), std::string::npos) << seen[true];
}

// `check -i` of the same two nodes over SSH and through srun (--launcher slurm), with the same
// environment on the nodes: the same text report and the same JSON. Each node's fake python answers
// with the trees of its host name, which both transports' node1 and node2 share; node2's PyTorch
// differs, so the verdicts and the exit status (1) are not the trivial ones.
TEST_F(TransportParity, TheClusterCheckGivesTheSameReport) {
    TempDir trees;
    write_per_host_python(trees / "python3", trees.path());
    for (int k = 1; k <= 2; ++k) {
        auto site = trees / ("node" + std::to_string(k)) / "site-packages";
        write_file(site / "torch/__init__.py", "");
        write_file(site / "torch/version.py", "__version__ = '" +
                                                  std::string(k == 1 ? "2.1.0" : "2.2.0") +
                                                  "+cu'\ncuda = '" + system_cuda_release() + "'\n");
    }
    for (const Words& format : {Words{}, Words{"--json"}}) {
        std::map<bool, RunResult> results;
        for (bool slurm : {false, true}) {
            Words argv = {
                binary().string(), "check",      "-i", "--python", (trees / "python3").string(),
                "--host",          "node1,node2"};
            const Words transport =
                slurm ? Words{"--launcher", "slurm"} : Words{"--ssh-timeout", "10"};
            argv.insert(argv.end(), transport.begin(), transport.end());
            argv.insert(argv.end(), format.begin(), format.end());
            RunOptions options;
            options.env = slurm ? current_environment() : s_ssh->client_environment();
            if (slurm) {
                // srun gives the tasks the launcher's environment, SSH the login's (check.md):
                // here the same, Debian's login PATH and nothing of CUDA or NCCL set.
                (*options.env)["PATH"] =
                    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
                for (const char* name : {"CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "CXX"}) {
                    options.env->erase(name);
                }
            }
            options.timeout = 120s;
            results[slurm] = run(
                slurm ? cluster().controller_command(argv) : s_ssh->client_command(argv), options);
            EXPECT_EQ(results[slurm].exit_code, 1) << slurm << describe(results[slurm]);
        }
        // Both nodes answered through srun.
        EXPECT_NE(
            results[true].out.find(format.empty() ? "Checked: 2 of 2\n" : "\"unreachable\": {}"),
            std::string::npos)
            << results[true].out;
        EXPECT_EQ(results[true].out, results[false].out);
        EXPECT_EQ(results[true].err, results[false].err);
    }
}

} // namespace
} // namespace colossalai::test
