#pragma once

// A fixture for `colossalai run` on this machine: a job directory, a fake `torchrun` that records
// its argv (so a test can prove nothing was started), and a Python venv first on PATH whose
// torch/version.py the test writes, so that no result depends on this machine's Python.

#include "support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::test {

class RunLocal : public ::testing::Test {
protected:
    using Words = std::vector<std::string>;

    // One venv per test process: creating it costs a few hundred milliseconds.
    static void SetUpTestSuite() {
        s_venv_root = std::make_unique<TempDir>("colossalai-venv");
        s_venv = s_venv_root->path() / "venv";
        RunResult made = run({"/usr/bin/python3", "-m", "venv", "--without-pip", s_venv.string()});
        ASSERT_EQ(made.exit_code, 0) << made.err;
        for (const auto& entry : std::filesystem::directory_iterator(s_venv / "lib")) {
            s_site_packages = entry.path() / "site-packages";
        }
        ASSERT_TRUE(std::filesystem::is_directory(s_site_packages));
    }
    static void TearDownTestSuite() { s_venv_root.reset(); }

    void SetUp() override {
        write_file(m_dir / "bin/torchrun",
                   "#!/bin/sh\nprintf '%s\\0' \"$@\" > '" + record().string() + "'\n", 0755);
        std::filesystem::create_directories(job());
        set_torch(std::nullopt);
    }

    // Writes torch/version.py into the venv (nullopt: no torch at all).
    static void set_torch(const std::optional<std::string>& version) {
        std::filesystem::remove_all(s_site_packages / "torch");
        if (version) {
            write_file(s_site_packages / "torch/version.py",
                       "__version__ = '" + *version + "'\ncuda = None\n");
        }
    }

    // sys.executable of the venv: the `<python>` of the two `-m torch.distributed` forms.
    static std::string venv_python() { return (s_venv / "bin/python3").string(); }

    // The working directory of the launcher.
    std::filesystem::path job() const { return m_dir / "job"; }
    std::filesystem::path record() const { return m_dir / "torchrun-called"; }
    bool torchrun_called() const { return std::filesystem::exists(record()); }

    // `colossalai run ARGS...` in job(), with the venv and the fake torchrun first on PATH.
    RunResult run_colossalai_run(const Words& args) const {
        RunOptions options;
        options.cwd = job();
        options.env = std::map<std::string, std::string>{
            {"PATH", (s_venv / "bin").string() + ":" + (m_dir / "bin").string() + ":/usr/bin:/bin"},
            {"NCCL_DEBUG", "INFO"}};
        Words words = {"run"};
        words.insert(words.end(), args.begin(), args.end());
        return run_colossalai(words, options);
    }

    TempDir m_dir{"colossalai-run"};

private:
    static inline std::unique_ptr<TempDir> s_venv_root;
    static inline std::filesystem::path s_venv;
    static inline std::filesystem::path s_site_packages;
};

} // namespace colossalai::test
