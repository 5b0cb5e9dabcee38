// `colossalai check -i` with a pyenv or asdf shim first on PATH: the shim is resolved to the
// interpreter it would run, which is asked instead (the shim itself never runs), unless the
// selection is one only the tool can answer (a version that is not installed).

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

class CheckShim : public CheckTest {
protected:
    // A pyenv root whose version 3.11.7 is the shared venv (as pyenv-virtualenv links its
    // environments), with the shim first on PATH.
    void use_pyenv() {
        fs::path root = scratch() / "pyenv";
        fs::create_directories(root / "versions");
        fs::create_directory_symlink(venv().root, root / "versions" / "3.11.7");
        m_env["PATH"] =
            write_python_shim("pyenv", root, ran(), venv().python).string() + ":" + m_env["PATH"];
        m_env["PYENV_DIR"] = (scratch() / "work").string();
        fs::create_directories(scratch() / "work");
    }
    void use_asdf() {
        fs::path data = scratch() / "home" / ".asdf";
        fs::create_directories(data / "installs" / "python");
        fs::create_directory_symlink(venv().root, data / "installs" / "python" / "3.11.7");
        m_env["PATH"] =
            write_python_shim("asdf", data, ran(), venv().python).string() + ":" + m_env["PATH"];
        m_env["HOME"] = (scratch() / "home").string();
    }
    fs::path ran() const { return scratch() / "shim-ran"; }
    std::string python_line(const fs::path& interpreter) const {
        return "Python: " + interpreter.string() + " (" + venv().python_version + ")";
    }
    std::vector<std::string> report(const RunResult& result) const {
        EXPECT_EQ(result.exit_code, 0) << result.err;
        return report_lines(result.out);
    }
    static bool contains(const std::vector<std::string>& lines, const std::string& line) {
        return std::find(lines.begin(), lines.end(), line) != lines.end();
    }
};

TEST_F(CheckShim, APyenvVersionFileIsReadNotTheShimRun) {
    install_torch("__version__ = '2.1.0'\ncuda = None\n");
    use_pyenv();
    write_file(scratch() / "work" / ".python-version", "3.11.7\n");
    std::vector<std::string> lines = report(check({"-i"}));
    EXPECT_TRUE(contains(lines, python_line(scratch() / "pyenv/versions/3.11.7/bin/python3")))
        << ::testing::PrintToString(lines);
    EXPECT_TRUE(contains(lines, "PyTorch version: 2.1.0")); // the version's own site-packages
    EXPECT_FALSE(fs::exists(ran()));
}

TEST_F(CheckShim, PyenvSystemIsTheNextPythonOnPath) {
    use_pyenv();
    m_env["PYENV_VERSION"] = "system";
    std::vector<std::string> lines = report(check({"-i"}));
    EXPECT_TRUE(contains(lines, python_line(venv().python))) << ::testing::PrintToString(lines);
    EXPECT_FALSE(fs::exists(ran()));
}

TEST_F(CheckShim, APyenvVersionNotInstalledIsLeftToTheShim) {
    use_pyenv();
    write_file(scratch() / "work" / ".python-version", "3.9.1\n");
    std::vector<std::string> lines = report(check({"-i"}));
    EXPECT_TRUE(contains(lines, python_line(scratch() / "pyenv/shims/python3")))
        << ::testing::PrintToString(lines);
    EXPECT_TRUE(fs::exists(ran()));
}

TEST_F(CheckShim, AnAsdfToolVersionsFileIsReadNotTheShimRun) {
    use_asdf();
    write_file(scratch() / "home" / ".tool-versions", "nodejs 20.1.0\npython 3.11.7\n");
    std::vector<std::string> lines = report(check({"-i"}));
    EXPECT_TRUE(
        contains(lines, python_line(scratch() / "home/.asdf/installs/python/3.11.7/bin/python3")))
        << ::testing::PrintToString(lines);
    EXPECT_FALSE(fs::exists(ran()));
}

} // namespace
} // namespace colossalai::test
