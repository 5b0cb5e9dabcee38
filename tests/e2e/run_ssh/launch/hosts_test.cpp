// `colossalai run --hostfile` with --include, --exclude and --num_nodes over SSH: the selected
// hosts, and only they, run their node, with node ranks in the selection's order. The nodes run
// the recording fake torchrun, found first on the PATH the launcher exports.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::test {
namespace {

class LaunchHostfileOverSsh : public SharedSshCluster<3> {
protected:
    void SetUp() override {
        SharedSshCluster<3>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        write_file(m_job / "hosts", "# the test cluster\nnode1\nnode2  # second\n\nnode3\n");
        // Every node says where it runs and as which rank.
        m_fake.behave("echo \"rank $rank on $(hostname)\"\n");
    }

    // Runs the launcher on the hostfile with SELECTION; the job is `train.py --lr 0.1`.
    RunResult launch(const Words& selection) const {
        Words args = {"--hostfile", "hosts"};
        args.insert(args.end(), selection.begin(), selection.end());
        return launch_with(args, {});
    }

    // Runs the launcher with ARGS (no hostfile unless given) and SCHEDULER variables added to
    // its environment, as inside a batch job.
    RunResult launch_with(Words args, const Env& scheduler) const {
        args.insert(args.end(), {"--nproc_per_node", "1", "train.py", "--lr", "0.1"});
        LaunchOptions options;
        options.env = launcher_environment(cluster(), m_fake.bin());
        options.env->insert(scheduler.begin(), scheduler.end());
        options.cwd = m_job.path();
        return run_launcher(cluster(), args, options);
    }

    // What node rank `rank` of a job of `nodes` nodes (master `master`: the first host, or the
    // default 127.0.0.1 for one node) was started with.
    static Words torchrun_argv(int rank, int nodes, const std::string& master) {
        return {"--nproc_per_node=1",
                "--nnodes=" + std::to_string(nodes),
                "--node_rank=" + std::to_string(rank),
                "--master_addr=" + master,
                "--master_port=29500",
                "train.py",
                "--lr",
                "0.1"};
    }

    // Checks a job that ran on HOSTS (node names, in rank order) and succeeded.
    // `notice`: the line that says where the hosts came from, if any.
    void expect_ran_on(const RunResult& result, const std::vector<std::string>& hosts,
                       const std::string& notice = "") const {
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        Words out;
        Words summary;
        std::vector<int> ranks;
        for (size_t rank = 0; rank < hosts.size(); ++rank) {
            std::string line = "rank " + std::to_string(rank) + " on " + hosts[rank];
            out.push_back(hosts.size() > 1 ? hosts[rank] + ": " + line : line);
            summary.push_back(hosts[rank] + ": success");
            ranks.push_back(static_cast<int>(rank));
            EXPECT_EQ(m_fake.argv(static_cast<int>(rank)),
                      torchrun_argv(static_cast<int>(rank), static_cast<int>(hosts.size()),
                                    hosts.size() > 1 ? hosts[0] : "127.0.0.1"));
            EXPECT_EQ(read_file(m_fake.recorded(static_cast<int>(rank), "cwd")),
                      m_job.path().string() + "\n");
        }
        EXPECT_EQ(sorted(lines_of(result.out)), sorted(out)) << describe(result);
        EXPECT_EQ(result.err, notice + summary_block(summary)) << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), ranks);
    }

    JobDir m_job;
    FakeTorchrun m_fake;
};

TEST_F(LaunchHostfileOverSsh, WholeHostfile) {
    expect_ran_on(launch({}), {"node1", "node2", "node3"});
}

TEST_F(LaunchHostfileOverSsh, IncludeKeepsItsOwnOrder) {
    expect_ran_on(launch({"--include", "node3,node1"}), {"node3", "node1"});
}

TEST_F(LaunchHostfileOverSsh, ExcludeKeepsTheFilesOrder) {
    expect_ran_on(launch({"--exclude", "node2"}), {"node1", "node3"});
}

TEST_F(LaunchHostfileOverSsh, NumNodesTakesTheFirstHosts) {
    expect_ran_on(launch({"--num_nodes", "2"}), {"node1", "node2"});
}

TEST_F(LaunchHostfileOverSsh, NumNodesAfterInclude) {
    expect_ran_on(launch({"--include", "node2,node3,node1", "--num_nodes", "2"}),
                  {"node2", "node3"});
}

TEST_F(LaunchHostfileOverSsh, OneRemoteNodeAfterExcludeIsNotPrefixed) {
    // A single node passes its output through unchanged, even over SSH.
    expect_ran_on(launch({"--exclude", "node1,node3"}), {"node2"});
}

// Inside a Slurm allocation, with no --host or --hostfile, the allocation's node list
// (expanded natively, no scontrol) is the pool; the selection options apply to it.
TEST_F(LaunchHostfileOverSsh, HostsFromSlurmJobNodelist) {
    expect_ran_on(launch_with({"--exclude", "node2"}, {{"SLURM_JOB_NODELIST", "node[1-3]"}}),
                  {"node1", "node3"},
                  "colossalai: using 2 of the 3 hosts of the Slurm allocation "
                  "(SLURM_JOB_NODELIST=node[1-3])\n");
}

// A PBS node file has one line per slot: each host once, in the order of its first line.
TEST_F(LaunchHostfileOverSsh, HostsFromPbsNodefile) {
    write_file(m_job / "nodefile", "node3\nnode3\nnode1\nnode1\nnode3\n");
    std::string path = (m_job.path() / "nodefile").string();
    expect_ran_on(launch_with({}, {{"PBS_NODEFILE", path}}), {"node3", "node1"},
                  "colossalai: using the 2 hosts of the PBS job (PBS_NODEFILE=" + path + ")\n");
}

} // namespace
} // namespace colossalai::test
