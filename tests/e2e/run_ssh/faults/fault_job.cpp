#include "fault_job.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace colossalai::test {

namespace fs = std::filesystem;

FaultJob::FaultJob(const SshCluster& cluster, const std::string& name)
    : m_cluster(cluster), m_marker("cai-fault-" + name + "-" + std::to_string(::getpid())) {
    install_fake_torchrun(m_dir.path());
    write_file(m_dir / "job/train.py", "");
}

FaultJob::~FaultJob() {
    for (const auto& [host, pid] : processes()) {
        ::kill(pid, SIGKILL);
    }
}

void FaultJob::behave(const std::string& rank, const std::string& script) const {
    write_file(m_dir / "behave" / (rank + ".sh"), script);
}

void FaultJob::release(const std::string& name) const {
    write_file(m_dir / "release" / name, "");
}

bool FaultJob::ready(int rank, std::chrono::milliseconds timeout) const {
    return eventually(
        [&] { return fs::exists(m_dir / "record" / (std::to_string(rank) + ".ready")); }, timeout);
}

pid_t FaultJob::recorded_pid(int rank) const {
    std::string text = read_file(m_dir / "record" / (std::to_string(rank) + ".pid"));
    return text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
}

std::vector<pid_t> FaultJob::recorded_job(int rank) const {
    std::vector<pid_t> pids{recorded_pid(rank)};
    std::istringstream children(read_file(m_dir / "record" / (std::to_string(rank) + ".children")));
    for (pid_t pid = 0; children >> pid;) {
        pids.push_back(pid);
    }
    return pids;
}

Words FaultJob::command(const std::string& hosts, const Words& args) const {
    Words argv{binary().string(), "run", "--host", hosts, "--nproc_per_node", "1"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"train.py", m_marker});
    return m_cluster.client_command(argv);
}

RunOptions FaultJob::options() const {
    RunOptions options = m_cluster.client_options();
    (*options.env)["PATH"] = (m_dir / "bin").string() + ":" + (*options.env)["PATH"];
    options.cwd = m_dir / "job";
    return options;
}

std::unique_ptr<Background> FaultJob::start(const std::string& hosts, const Words& args) const {
    return std::make_unique<Background>(command(hosts, args), options(), out_file(), err_file());
}

RunResult FaultJob::run(const std::string& hosts, const Words& args) const {
    return colossalai::test::run(command(hosts, args), options());
}

std::vector<std::pair<int, pid_t>> FaultJob::processes() const {
    return m_cluster.processes_with_marker(m_marker);
}

bool FaultJob::ended_on(int k) const {
    std::vector<std::pair<int, pid_t>> left = processes();
    return std::none_of(left.begin(), left.end(),
                        [k](const auto& process) { return process.first == k; });
}

void FaultJob::expect_none_left(std::chrono::milliseconds timeout) const {
    m_cluster.expect_no_process_with_marker(m_marker, timeout);
}

std::vector<pid_t> extra_processes_on_host(const SshCluster& cluster, int k) {
    std::vector<pid_t> pids = cluster.pids_on_host(k);
    pid_t listener = cluster.sshd_pid(k);
    pids.erase(std::remove(pids.begin(), pids.end(), listener), pids.end());
    return pids;
}

} // namespace colossalai::test
