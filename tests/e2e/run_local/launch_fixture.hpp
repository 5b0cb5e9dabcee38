#pragma once

// Real local launches of `colossalai run` against the fake torchrun: telling each node how to
// behave, reading what it recorded, starting the launcher in the background to signal it, and
// checking that no process of a job is left.

#include "fixture.hpp"
#include "lines.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace colossalai::test {

class RunLaunch : public RunLocal {
protected:
    // SIGKILLs what a failed test left of its jobs (see job_processes()).
    void TearDown() override;

    // The sh code node `rank` runs after recording (see fake_torchrun.sh); "all" for every node.
    void behave(const std::string& rank, const std::string& script) const {
        write_file(m_dir / "behave" / (rank + ".sh"), script);
    }
    // A file in the fake's state directory, for its `out FILE` / `err FILE`.
    void state_file(const std::string& name, const std::string& content) const {
        write_file(m_dir / name, content);
    }
    // job()/hosts naming this machine twice: `localhost` (rank 0), `127.0.0.1` (rank 1). The
    // launches then go without the rendezvous check: the fake torchrun serves no rendezvous, and
    // these tests run in parallel on the default master port (rendezvous_test.cpp checks it).
    void two_local_nodes() {
        write_file(job() / "hosts", "localhost\n127.0.0.1\n");
        m_launcher_options = {"--no-rendezvous-check"};
    }

    // The words of a NUL-separated record (argv, cmdline, env).
    Words recorded_words(int rank, const std::string& what) const;
    pid_t recorded_pid(int rank) const;
    // The node's torchrun, the child and grandchild each `spawn` started.
    std::vector<pid_t> job_pids(int rank) const;
    // Waits (up to 20 s) for node `rank` to record `what` ("ready", "catching").
    bool wait_for(int rank, const std::string& what = "ready") const;
    // Waits for nodes 0..count-1 to record `what`.
    bool all_wait_for(int count, const std::string& what = "ready") const;

    // The launcher in job() with launcher_env(), output in m_dir/launcher.{out,err}.
    std::unique_ptr<Background> start_launcher(const Words& args) const;
    std::string launcher_out() const { return read_file(m_dir / "launcher.out"); }
    std::string launcher_err() const { return read_file(m_dir / "launcher.err"); }

    // Every live process of this test's jobs: the launcher, its guardians, each torchrun and all
    // it started. They all carry FAKE_TORCHRUN=fake_torchrun() in their environment.
    std::vector<pid_t> job_processes() const;
    // Expects job_processes() to be empty within 20 s.
    void expect_nothing_left() const;

    // Expects node `rank`'s torchrun and what it spawned (`processes` in all, 1 + 2 per spawn) to
    // be gone (dead or zombies) within 20 s, and no live process left in its process group.
    void expect_job_gone(int rank, size_t processes) const;
};

// The command line words the launcher gives torchrun for node `rank` of `nodes`.
std::vector<std::string> torchrun_flags(int nproc, int nodes, int rank, const std::string& master);

} // namespace colossalai::test
