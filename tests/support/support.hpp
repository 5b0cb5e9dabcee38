#pragma once

// Shared helpers for the end-to-end tests: the binary under test and the fixtures, on top of the
// helpers every test may use (files.hpp, process.hpp).

#include "files.hpp"
#include "process.hpp"

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace colossalai::test {

// The colossalai binary under test (set by CMake).
std::filesystem::path binary();

// The source tree's tests/fixtures directory (set by CMake).
std::filesystem::path fixtures_dir();

// Installs tests/fixtures/fake_torchrun.sh as STATE/bin/torchrun with its empty state
// directories STATE/record, STATE/behave and STATE/release (see the script for what they hold);
// returns STATE/bin/torchrun.
std::filesystem::path install_fake_torchrun(const std::filesystem::path& state);

// `colossalai ARGS...`.
RunResult run_colossalai(const std::vector<std::string>& args, const RunOptions& options = {});

// A version manager's python3 shim, in the layout of `tool` ("pyenv": <root>/shims/python3 as
// pyenv-rehash writes it, root = PYENV_ROOT; "asdf": <root>/shims/python3 as asdf reshim writes
// it, root = ASDF_DATA_DIR). It appends a line to `ran` each time it runs, then runs `python`:
// a test that finds `ran` missing proves the launcher resolved the shim instead of running it.
// Returns the shims directory.
std::filesystem::path write_python_shim(const std::string& tool, const std::filesystem::path& root,
                                        const std::filesystem::path& ran,
                                        const std::filesystem::path& python);

// The cluster checks' fake nodes (tests/e2e/cluster_check, tests/e2e/run_slurm/check_test.cpp).
// A fake python3 at `python` that answers the node probe's query with the site-packages
// TREES/<its host name>/site-packages (`hostname`: each test host or Slurm node has its own), so
// that nodes sharing this machine's files can differ.
void write_per_host_python(const std::filesystem::path& python, const std::filesystem::path& trees);
// An empty file system mounted over `dir` in the mount namespace of process `pid` (a test node's
// sshd or slurmd, whose children run that node's jobs) for the object's life: on that node alone
// the directory's files are gone, while the test nodes otherwise share this machine's files.
// Throws std::runtime_error when the mount fails; unmounts at the end (best effort).
class HiddenOnNode {
public:
    HiddenOnNode(pid_t pid, std::filesystem::path dir);
    ~HiddenOnNode();
    HiddenOnNode(const HiddenOnNode&) = delete;
    HiddenOnNode& operator=(const HiddenOnNode&) = delete;

private:
    pid_t m_pid;
    std::filesystem::path m_dir;
};

// The release of this machine's /usr/local/cuda (the test nodes share its files), so that a fake
// PyTorch can match it and only the differences a test makes count; "12.1" without one.
std::string system_cuda_release();

} // namespace colossalai::test
