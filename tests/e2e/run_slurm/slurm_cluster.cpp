#include "slurm_cluster.hpp"

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace colossalai::test {

namespace fs = std::filesystem;

fs::path slurm_cluster_script() {
    return fixtures_dir().parent_path() / "e2e/slurm/cluster.sh";
}

bool can_run_slurm_cluster() {
    return ::geteuid() == 0 && fs::exists("/usr/sbin/slurmctld") &&
           fs::exists("/usr/sbin/slurmd") && fs::exists("/usr/bin/srun") &&
           fs::exists("/usr/sbin/munged");
}

SlurmCluster::SlurmCluster(int nodes) : m_dir("colossalai-slurm-cluster"), m_nodes(nodes) {
    script({"up", dir().string(), std::to_string(nodes), "--owner", std::to_string(::getpid())});
}

SlurmCluster::~SlurmCluster() {
    try {
        RunResult result = run({slurm_cluster_script().string(), "down", dir().string()});
        if (result.exit_code != 0) {
            std::fprintf(stderr, "SlurmCluster: cluster.sh down failed: %s\n", result.err.c_str());
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "SlurmCluster: teardown failed: %s\n", error.what());
    }
}

std::string SlurmCluster::script(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{slurm_cluster_script().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult result = run(argv);
    if (result.exit_code != 0) {
        throw std::runtime_error("slurm/cluster.sh " + args.at(0) + " failed (exit " +
                                 std::to_string(result.exit_code) + "): " + result.err);
    }
    return result.out;
}

std::vector<std::string>
SlurmCluster::controller_command(const std::vector<std::string>& argv) const {
    std::vector<std::string> command{slurm_cluster_script().string(), "exec", dir().string(), "--"};
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

std::vector<std::string> SlurmCluster::node_command(int k,
                                                    const std::vector<std::string>& argv) const {
    std::vector<std::string> command{slurm_cluster_script().string(), "host-exec", dir().string(),
                                     std::to_string(k)};
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

RunResult SlurmCluster::run_on_controller(const std::vector<std::string>& argv,
                                          const RunOptions& options) const {
    return run(controller_command(argv), options);
}

std::vector<pid_t> SlurmCluster::pids_on_node(int k) const {
    if (k < 0 || k > m_nodes) {
        throw std::out_of_range("no node " + std::to_string(k));
    }
    std::istringstream lines(script({"pids", dir().string(), k == 0 ? "ctl" : std::to_string(k)}));
    std::vector<pid_t> found;
    for (pid_t pid = 0; lines >> pid;) {
        if (process_alive(pid)) {
            found.push_back(pid);
        }
    }
    return found;
}

std::vector<pid_t> SlurmCluster::processes_with_marker(const std::string& marker) const {
    std::vector<pid_t> found;
    for (int k = 0; k <= m_nodes; ++k) {
        for (pid_t pid : pids_on_node(k)) {
            std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
            if (cmdline.find(marker) != std::string::npos) {
                found.push_back(pid);
            }
        }
    }
    return found;
}

} // namespace colossalai::test
