#pragma once

// The fault tests over SSH (tests/e2e/run_ssh/faults/): one `FaultJob` per launch
// series, each with its own copy of SshTeardown's fake torchrun (own record/, behave/, release/
// directories) and its own marker, so that two launches on the same hosts can be told apart,
// and a cluster of any shape (aliases included).

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {

class FaultJob {
public:
    // NAME goes into the marker (cai-fault-NAME-<test pid>); keep it unique per test.
    FaultJob(const SshCluster& cluster, const std::string& name);
    // SIGKILLs, by PID, what is left of the job on any host.
    ~FaultJob();
    FaultJob(const FaultJob&) = delete;
    FaultJob& operator=(const FaultJob&) = delete;

    // As SshTeardown::behave / release / ready (helpers: ready, spawn, hold, await FILE).
    void behave(const std::string& rank, const std::string& script) const;
    void release(const std::string& name) const;
    bool ready(int rank, std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
    pid_t recorded_pid(int rank) const; // 0 when it never started
    // What the node's fake recorded of its own: its PID and those of what `spawn` started
    // (complete once ready(rank)). These live until the job is stopped, unlike a snapshot of
    // processes(), which can catch a fork on its way to exec `sleep` that then ends by itself.
    std::vector<pid_t> recorded_job(int rank) const;

    // `colossalai run --host HOSTS --nproc_per_node 1 ARGS... train.py MARKER` in the client
    // namespace, this job's fake first on PATH; output in launcher.{out,err} of dir().
    Words command(const std::string& hosts, const Words& args) const;
    RunOptions options() const;
    std::unique_ptr<Background> start(const std::string& hosts, const Words& args = {}) const;
    RunResult run(const std::string& hosts, const Words& args = {}) const;

    std::filesystem::path out_file() const { return m_dir / "launcher.out"; }
    std::filesystem::path err_file() const { return m_dir / "launcher.err"; }
    std::string out() const { return read_file(out_file()); }
    std::string err() const { return read_file(err_file()); }

    // Live processes carrying the marker on the client (0) and every host.
    std::vector<std::pair<int, pid_t>> processes() const;
    // True once none of them runs on host k.
    bool ended_on(int k) const;
    // Expects none of them within `timeout`; lists what is left when not.
    void expect_none_left(std::chrono::milliseconds timeout) const;

    const std::string& marker() const { return m_marker; }
    const std::filesystem::path& dir() const { return m_dir.path(); }

private:
    const SshCluster& m_cluster;
    TempDir m_dir{"colossalai-ssh-fault"};
    std::string m_marker;
};

// Host k's processes other than its sshd listener: sessions, wrappers, jobs.
std::vector<pid_t> extra_processes_on_host(const SshCluster& cluster, int k);

} // namespace colossalai::test
