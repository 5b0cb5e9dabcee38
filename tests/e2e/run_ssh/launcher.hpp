#pragma once

// Helpers for the end-to-end tests of `colossalai run` over SSH (tests/e2e/run_ssh/):
// the launcher run inside a test cluster's client namespace, a recording fake torchrun that the
// hosts find first on the PATH the launcher exports, and line-exact output checks.

#include "lines.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {

using Words = std::vector<std::string>;
using Env = std::map<std::string, std::string>;

// `text` as a JSON string literal, as Python's json.dumps writes ASCII text.
std::string json_string(const std::string& text);

// tests/fixtures/fake_torchrun.sh installed as DIR/bin/torchrun in a directory every host sees
// (the hosts share the file system); it records node rank R's argv, cwd and environment in
// DIR/record/R.* and then sources DIR/behave/{R,all}.sh.
class FakeTorchrun {
public:
    FakeTorchrun();

    std::filesystem::path bin() const { return m_dir / "bin"; }
    std::filesystem::path recorded(int rank, const std::string& what) const;
    // The node ranks that started (have a record), sorted.
    std::vector<int> ranks_started() const;
    // Its arguments as node `rank` recorded them; empty when that rank never started.
    Words argv(int rank) const;
    // The behaviour script of every node (rank nullopt) or of one node.
    void behave(const std::string& script, std::optional<int> rank = std::nullopt) const;

private:
    TempDir m_dir{"colossalai-ssh-fake"};
};

// The launcher's environment: the client's plain one (cluster.client_environment()), `bin`
// first on PATH when given, plus `extra`.
Env launcher_environment(const SshCluster& cluster, const std::filesystem::path& bin = {},
                         const Env& extra = {});

// A job directory that holds the script the tests name, train.py: each node's preflight reads its
// script (as torchrun opens it, from the working directory) before anything starts.
class JobDir : public TempDir {
public:
    explicit JobDir(const std::string& tag = "colossalai-ssh-job") : TempDir(tag) {
        write("train.py", "");
    }
};

struct LaunchOptions {
    std::optional<Env> env;     // default: launcher_environment(cluster)
    std::filesystem::path cwd;  // default: a JobDir of the test program's
    std::filesystem::path home; // default: the cluster's shared client home
    std::chrono::milliseconds timeout{120000};
};

// `colossalai run ARGS...` (the built binary) in the cluster's client namespace.
RunResult run_launcher(const SshCluster& cluster, const Words& args,
                       const LaunchOptions& options = {});

// "TYPE BASE64" of an OpenSSH public key file (a .pub, a certificate).
std::string public_key_of(const std::filesystem::path& file);
// That of host k's own host key.
std::string host_public_key(const SshCluster& cluster, int k);

// run_launcher() with `fake` first on the hosts' PATH, in `cwd`, as `home` (default: the
// cluster's shared home), for at most a minute.
RunResult run_fake_job(const SshCluster& cluster, const FakeTorchrun& fake, const Words& args,
                       const std::filesystem::path& cwd, const std::filesystem::path& home = {});

} // namespace colossalai::test
