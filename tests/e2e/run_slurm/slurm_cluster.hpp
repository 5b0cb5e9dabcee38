#pragma once

// A real Slurm cluster for the end-to-end tests: slurmctld and munged on a controller `ctl`,
// and node1..nodeN, each a network namespace with its own slurmd. The work is done by
// tests/e2e/slurm/cluster.sh; docs/design.md ("Test Slurm cluster") explains the choices.

#include "support.hpp"

#include <gtest/gtest.h>

#include <sys/types.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::test {

// The script that brings Slurm clusters up and down.
std::filesystem::path slurm_cluster_script();

// True when this process may create namespaces and run the Slurm daemons (root) and they are
// installed (.ci/install-deps slurm).
bool can_run_slurm_cluster();

class SlurmCluster {
public:
    // Brings up the controller and node1..node<nodes> and waits until every node is idle (a
    // couple of seconds); throws std::runtime_error with the script's message when it cannot.
    // This process owns it: if it dies without tearing down, the next bring-up (or
    // `cluster.sh cleanup-stale`) removes the remains.
    explicit SlurmCluster(int nodes = 2);
    // Kills every process of the cluster (daemons, steps, tasks) by PID and deletes its
    // namespaces; never throws.
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    int nodes() const { return m_nodes; }
    const std::filesystem::path& dir() const { return m_dir.path(); }
    std::filesystem::path config() const { return dir() / "slurm.conf"; }

    // argv that runs `argv` on the controller, where srun, salloc and sbatch work (SLURM_CONF
    // set, host name ctl); the rest of the environment is the caller's.
    std::vector<std::string> controller_command(const std::vector<std::string>& argv) const;
    RunResult run_on_controller(const std::vector<std::string>& argv,
                                const RunOptions& options = {}) const;
    // argv that runs `argv` in node k's network namespace (cluster.sh host-exec).
    std::vector<std::string> node_command(int k, const std::vector<std::string>& argv) const;
    // Live processes in node k's network namespace (k = 0: the controller's).
    std::vector<pid_t> pids_on_node(int k) const;
    // Those of them on any node whose command line contains `marker`.
    std::vector<pid_t> processes_with_marker(const std::string& marker) const;

private:
    std::string script(const std::vector<std::string>& args) const; // throws on failure

    TempDir m_dir;
    int m_nodes = 0;
};

// Base of a test suite whose tests share one cluster of NODES nodes, brought up before the
// first test and torn down after the last. Tests skip when not root or without Slurm, and fail
// when the bring-up failed.
template <int Nodes>
class SharedSlurmCluster : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!can_run_slurm_cluster()) {
            return;
        }
        try {
            s_cluster = std::make_unique<SlurmCluster>(Nodes);
        } catch (const std::exception& error) {
            s_error = error.what();
        }
    }
    static void TearDownTestSuite() { s_cluster.reset(); }
    void SetUp() override {
        if (!can_run_slurm_cluster()) {
            GTEST_SKIP() << "needs root and Slurm (.ci/install-deps slurm)";
        }
        ASSERT_NE(s_cluster, nullptr) << "Slurm cluster bring-up failed: " << s_error;
    }
    static const SlurmCluster& cluster() { return *s_cluster; }

private:
    static inline std::unique_ptr<SlurmCluster> s_cluster;
    static inline std::string s_error;
};

} // namespace colossalai::test
