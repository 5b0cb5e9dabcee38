#pragma once

// A fixture for `colossalai run` on this machine: a job directory, a fake `torchrun`
// (tests/fixtures/fake_torchrun.sh) that records what it was started with and then behaves as a
// test tells it, and a Python venv first on PATH whose torch/version.py the test writes, so that
// no result depends on this machine's Python. With a PyTorch older than 1.10 the venv also gets
// fake torch.distributed.launch/run modules (tests/fixtures/fake_torch_launcher.py).

#include "support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::test {

class RunLocal : public ::testing::Test {
protected:
    using Words = std::vector<std::string>;
    using Env = std::map<std::string, std::string>;

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
        install_fake_torchrun(m_dir.path());
        std::filesystem::create_directories(job());
        // The scripts the tests name: each node's preflight reads its script (as torchrun opens
        // it) before anything starts.
        for (const char* script : {"train.py", "t.py", "x.py"}) {
            write_file(job() / script, "");
        }
        set_torch(std::nullopt);
    }

    // Writes torch/version.py into the venv (nullopt: no torch at all), and the fake launcher
    // modules of the `-m torch.distributed.*` command forms.
    static void set_torch(const std::optional<std::string>& version) {
        std::filesystem::remove_all(s_site_packages / "torch");
        if (version) {
            write_file(s_site_packages / "torch/version.py",
                       "__version__ = '" + *version + "'\ncuda = None\n");
            std::string launcher = read_file(fixtures_dir() / "fake_torch_launcher.py");
            write_file(s_site_packages / "torch/__init__.py", "");
            write_file(s_site_packages / "torch/distributed/__init__.py", "");
            write_file(s_site_packages / "torch/distributed/launch.py", launcher);
            write_file(s_site_packages / "torch/distributed/run.py", launcher);
        }
    }

    // The launcher's notice of the broken pair (run/torch_forms.hpp) for PyTorch `torch`
    // (MAJOR.MINOR, 1.9 to 1.13) started by `form`, as stderr shows it, when the venv's Python
    // (its lib/pythonX.Y) is 3.11 or newer; else "".
    static std::string broken_pair_line(const std::string& torch, const std::string& form) {
        std::string python = s_site_packages.parent_path().filename().string().substr(6);
        if (std::stoi(python.substr(python.find('.') + 1)) < 11) {
            return "";
        }
        return "colossalai: PyTorch " + torch + " on Python " + python + ": " + form +
               " stops before any worker starts (torch's to_std loses --redirects/--tee 0 and 3 "
               "on Python 3.11+, fixed in PyTorch 2.0); --extra_launch_args "
               "redirects=9:1,tee=9:1 avoids it, leaving the streams untouched, for up to 9 "
               "processes per node\n";
    }

    // sys.executable of the venv: the `<python>` of the two `-m torch.distributed` forms.
    static std::string venv_python() { return (s_venv / "bin/python3").string(); }
    static std::filesystem::path venv_bin() { return s_venv / "bin"; }

    // The working directory of the launcher.
    std::filesystem::path job() const { return m_dir / "job"; }
    std::filesystem::path fake_torchrun() const { return m_dir / "bin/torchrun"; }

    // A file the fake torchrun of node `rank` recorded (see fake_torchrun.sh): "argv", "cwd"...
    std::filesystem::path recorded(int rank, const std::string& what) const {
        return m_dir / "record" / (std::to_string(rank) + "." + what);
    }
    std::filesystem::path record() const { return recorded(0, "argv"); }
    bool torchrun_called() const { return !std::filesystem::is_empty(m_dir / "record"); }

    // The launcher's whole environment: the venv and the fake torchrun first on PATH.
    Env launcher_env() const {
        return {{"PATH", venv_bin().string() + ":" + (m_dir / "bin").string() + ":/usr/bin:/bin"},
                {"NCCL_DEBUG", "INFO"},
                {"FAKE_TORCHRUN", fake_torchrun().string()}};
    }

    // `colossalai run ARGS...` in job(), with launcher_env() unless `env` is given.
    RunResult run_colossalai_run(const Words& args, std::optional<Env> env = std::nullopt) const {
        RunOptions options;
        options.cwd = job();
        options.env = env ? *env : launcher_env();
        Words words = {"run"};
        words.insert(words.end(), m_launcher_options.begin(), m_launcher_options.end());
        words.insert(words.end(), args.begin(), args.end());
        return run_colossalai(words, options);
    }

    TempDir m_dir{"colossalai-run"};
    // Options run_colossalai_run (and RunLaunch::start_launcher) put before the test's own.
    Words m_launcher_options;

private:
    static inline std::unique_ptr<TempDir> s_venv_root;
    static inline std::filesystem::path s_venv;
    static inline std::filesystem::path s_site_packages;
};

} // namespace colossalai::test
