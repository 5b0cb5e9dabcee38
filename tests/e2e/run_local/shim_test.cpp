// `colossalai run --dry-run` with a pyenv or asdf shim first on PATH: the PyTorch version and the
// Python of the plan come from the interpreter the shim would run; the shim never runs.

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

class RunShim : public RunLocal {
protected:
    void SetUp() override {
        RunLocal::SetUp();
        set_torch("1.9.0"); // the `python -m torch.distributed.run` form shows the Python
    }
    fs::path ran() const { return m_dir / "shim-ran"; }
    // launcher_env() with the shims of `tool` first on PATH and version 3.11.7 being the venv.
    Env shim_env(const std::string& tool) const {
        fs::path root = tool == "pyenv" ? m_dir / "pyenv" : m_dir / "home" / ".asdf";
        fs::path versions = tool == "pyenv" ? root / "versions" : root / "installs" / "python";
        fs::create_directories(versions);
        fs::create_directory_symlink(venv_bin().parent_path(), versions / "3.11.7");
        Env env = launcher_env();
        env["PATH"] =
            write_python_shim(tool, root, ran(), venv_python()).string() + ":" + env["PATH"];
        env["HOME"] = (m_dir / "home").string();
        env["XDG_CACHE_HOME"] = (m_dir / "cache").string();
        return env;
    }
    // The dry run's first two lines: the summary and the node's command.
    std::string plan(const Env& env) const {
        RunResult result = run_colossalai_run({"--dry-run", "--nproc_per_node", "1", "x.py"}, env);
        EXPECT_EQ(result.exit_code, 0) << result.err;
        // The Python version is the one the shim would run (the venv's), read with the path.
        EXPECT_EQ(result.err, broken_pair_line("1.9", "python -m torch.distributed.run"));
        return result.out;
    }
    std::string expected(const fs::path& python) const {
        return "dry run: 1 node, PyTorch 1.9.0\n[node 0] 127.0.0.1 (local) cwd=" + job().string() +
               "\n    " + python.string() +
               " -m torch.distributed.run --nproc_per_node=1 --nnodes=1 --node_rank=0 "
               "--master_addr=127.0.0.1 --master_port=29500 x.py\n";
    }
};

TEST_F(RunShim, APyenvVersionFileIsReadNotTheShimRun) {
    Env env = shim_env("pyenv");
    write_file(job() / ".python-version", "3.11.7\n");
    fs::path python = m_dir / "pyenv/versions/3.11.7/bin/python3";
    EXPECT_EQ(plan(env), expected(python));
    EXPECT_EQ(plan(env), expected(python)); // from the cache
    EXPECT_FALSE(fs::exists(ran()));
    write_file(job() / ".python-version", "system\n"); // edited: the next python3 on PATH
    EXPECT_EQ(plan(env), expected(venv_python()));
    EXPECT_FALSE(fs::exists(ran()));
}

TEST_F(RunShim, APyenvVersionNotInstalledIsLeftToTheShim) {
    Env env = shim_env("pyenv");
    env["PYENV_VERSION"] = "3.9.1";
    EXPECT_EQ(plan(env), expected(venv_python())); // what the shim's interpreter reports
    EXPECT_TRUE(fs::exists(ran()));
}

TEST_F(RunShim, AnAsdfToolVersionsFileIsReadNotTheShimRun) {
    Env env = shim_env("asdf");
    write_file(job() / ".tool-versions", "python 3.11.7\n");
    EXPECT_EQ(plan(env), expected(m_dir / "home/.asdf/installs/python/3.11.7/bin/python3"));
    EXPECT_FALSE(fs::exists(ran()));
}

} // namespace
} // namespace colossalai::test
