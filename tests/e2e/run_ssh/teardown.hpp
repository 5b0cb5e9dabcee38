#pragma once

// `colossalai run` over SSH against the test hosts, for the teardown tests: a fake torchrun that
// every host finds first on PATH (the launcher exports its PATH to the nodes), per-rank
// behaviour scripts, the launcher started in the client namespace in the background, and the
// check that no process of the job survives on any host.
//
// Every job carries a marker unique to the test (the script's last argument), so that the node
// wrapper, the fake torchrun and every child it spawns carry it in their command lines.

#include "launcher.hpp" // summary_block
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {

class SshTeardown : public SharedSshCluster<2> {
protected:
    using Words = std::vector<std::string>;

    void SetUp() override;
    // SIGKILLs, by PID, what a failed test left of its job on any host.
    void TearDown() override;

    // The sh code node `rank` ("0", "1" or "all") runs after it started (see
    // tests/fixtures/fake_torchrun.sh): among others
    //   ready        creates record/<rank>.ready (tests wait for it before they act)
    //   spawn        starts a child and a grandchild in the job's process group, carrying the
    //                marker (they outlive the fake unless its group is stopped)
    //   hold         loops on `sleep 0.1` in the foreground, forever
    //   await FILE   waits until the test creates FILE (see release())
    // and $rank, $marker; falling off the end exits 0.
    void behave(const std::string& rank, const std::string& script) const;
    // Creates the file that `await NAME` waits for.
    void release(const std::string& name) const;
    // Waits (up to 30 s) for node `rank` to have run `ready`.
    bool ready(int rank) const;
    bool all_ready() const { return ready(0) && ready(1); }

    // `colossalai run --host node1,node2 --nproc_per_node 1 ARGS... train.py MARKER` in the
    // client namespace, in the job directory, as `home` (default: the shared one); output in
    // launcher.{out,err}.
    std::unique_ptr<Background> start_launcher(const Words& args,
                                               const std::filesystem::path& home = {}) const;
    std::string launcher_out() const { return read_file(m_dir / "launcher.out"); }
    std::string launcher_err() const { return read_file(m_dir / "launcher.err"); }
    // Waits for stderr to contain `text` (up to `timeout`).
    bool launcher_said(const std::string& text,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
    // The launcher's exit status; -1 with a failure when it still runs after `timeout` or was
    // killed by a signal.
    static int exit_status(Background& launcher,
                           std::chrono::milliseconds timeout = std::chrono::seconds(90));

    // Live processes carrying the job's marker on the client (0) and every host.
    std::vector<std::pair<int, pid_t>> job_processes() const;
    // Expects none of them within `timeout`, polling; lists what is left when not.
    void expect_no_job_left(std::chrono::milliseconds timeout) const;

    const std::string& marker() const { return m_marker; }

    TempDir m_dir{"colossalai-ssh-teardown"};

private:
    std::string m_marker;
};

} // namespace colossalai::test
