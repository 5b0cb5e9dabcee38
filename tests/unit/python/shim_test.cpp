// resolve_shim() over pyenv- and asdf-style trees made here: which interpreter each tool would
// run, and when the shim must be run instead.

#include "files.hpp"

#include "colossalai/python/shim.hpp"

#include <gtest/gtest.h>

namespace colossalai::python {
namespace {

namespace fs = std::filesystem;
using Verdict = ShimResolution::Verdict;

const char* const executable = "#!/bin/sh\nexit 0\n";

// A pyenv root with versions 3.11.7, 3.12.1 and 2.7.18 (no python3), a system python3 on PATH
// after the shims, and a working directory work/project/src.
class PyenvShim : public ::testing::Test {
protected:
    void SetUp() override {
        m_shim = m_dir.write("pyenv/shims/python3",
                             "#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set -x\n\n"
                             "program=\"${0##*/}\"\n\nexport PYENV_ROOT=\"" +
                                 root().string() + "\"\nexec \"" + root().string() +
                                 "/libexec/pyenv\" exec \"$program\" \"$@\"\n",
                             0755);
        for (const char* version : {"3.11.7", "3.12.1"}) {
            m_dir.write(std::string("pyenv/versions/") + version + "/bin/python3", executable,
                        0755);
        }
        m_dir.write("pyenv/versions/2.7.18/bin/python2.7", executable, 0755);
        m_dir.write("pyenv/pyenv.d/exec/pip-rehash.bash", "# pyenv's own, for pip\n");
        m_dir.write("system/bin/python3", executable, 0755);
        fs::create_directories(cwd());
        m_lookup.path_env =
            (root() / "shims").string() + ":" + (m_dir.path() / "system/bin").string();
        m_lookup.working_directory = cwd();
        m_lookup.variables["HOME"] = (m_dir.path() / "home").string();
    }

    fs::path root() const { return m_dir.path() / "pyenv"; }
    fs::path cwd() const { return m_dir.path() / "work/project/src"; }
    fs::path version(const std::string& name) const {
        return root() / "versions" / name / "bin" / "python3";
    }
    ShimResolution resolve() const { return resolve_shim(m_shim, m_lookup); }

    test::TempDir m_dir;
    fs::path m_shim;
    Lookup m_lookup;
};

TEST_F(PyenvShim, TheGlobalVersionFileWhenNothingElseIsSet) {
    m_dir.write("pyenv/version", "3.12.1\n");
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, version("3.12.1"));
    EXPECT_EQ(resolution.selection, "pyenv 3.12.1 (set by " + (root() / "version").string() + ")");
}

TEST_F(PyenvShim, NoVersionAnywhereMeansSystem) {
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, m_dir.path() / "system/bin/python3");
}

TEST_F(PyenvShim, TheNearestPythonVersionFileUpwardsWins) {
    m_dir.write("pyenv/version", "3.12.1\n");
    m_dir.write("work/.python-version", "3.12.1\n");
    m_dir.write("work/project/.python-version", "3.11.7\n");
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, version("3.11.7"));
    EXPECT_NE(resolution.selection.find("work/project/.python-version"), std::string::npos);
}

TEST_F(PyenvShim, AFileAddedCloserChangesTheSelection) {
    m_dir.write("work/project/.python-version", "3.11.7\n");
    std::string before = resolve().selection;
    m_dir.write("work/project/src/.python-version", "3.11.7\n");
    ShimResolution after = resolve();
    EXPECT_EQ(after.interpreter, version("3.11.7"));
    EXPECT_NE(after.selection, before); // the cache key changes with it
}

TEST_F(PyenvShim, PyenvVersionOverridesEveryFile) {
    m_dir.write("work/project/.python-version", "3.11.7\n");
    m_lookup.variables["PYENV_VERSION"] = "3.12.1";
    ShimResolution resolution = resolve();
    EXPECT_EQ(resolution.interpreter, version("3.12.1"));
    EXPECT_EQ(resolution.selection, "pyenv 3.12.1 (set by PYENV_VERSION)");
}

TEST_F(PyenvShim, AnEmptyPyenvVersionIsUnset) {
    m_dir.write("work/.python-version", "3.11.7\n");
    m_lookup.variables["PYENV_VERSION"] = "";
    EXPECT_EQ(resolve().interpreter, version("3.11.7"));
}

TEST_F(PyenvShim, PyenvDirIsSearchedBeforeTheCurrentDirectory) {
    m_dir.write("work/project/.python-version", "3.11.7\n");
    m_dir.write("elsewhere/.python-version", "3.12.1\n");
    m_lookup.variables["PYENV_DIR"] = (m_dir.path() / "elsewhere").string();
    EXPECT_EQ(resolve().interpreter, version("3.12.1"));
    m_lookup.variables["PYENV_DIR"] = (m_dir.path() / "empty").string();
    fs::create_directories(m_dir.path() / "empty");
    EXPECT_EQ(resolve().interpreter, version("3.11.7")); // then from the current directory
}

TEST_F(PyenvShim, SystemIsTheNextPythonOnPathAfterTheShims) {
    m_lookup.variables["PYENV_VERSION"] = "system";
    // A python3 in a directory before the shims is not skipped, the shims directory is.
    m_lookup.path_env += ":" + (root() / "shims").string();
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, m_dir.path() / "system/bin/python3");
}

TEST_F(PyenvShim, SeveralVersionsTheFirstWithTheCommandWins) {
    // 2.7.18 has no python3: the next one that has it answers.
    m_dir.write("work/.python-version", "# versions for this project\n\n2.7.18  # legacy\n"
                                        "3.11.7\r\n3.12.1\n");
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, version("3.11.7"));
    EXPECT_EQ(resolution.selection, "pyenv 2.7.18:3.11.7:3.12.1 (set by " +
                                        (m_dir.path() / "work/.python-version").string() + ")");
    m_lookup.variables["PYENV_VERSION"] = "3.12.1:3.11.7";
    EXPECT_EQ(resolve().interpreter, version("3.12.1"));
}

TEST_F(PyenvShim, AFileWithOnlyCommentsMeansSystem) {
    m_dir.write("pyenv/version", "3.12.1\n");
    m_dir.write("work/.python-version", "# nothing yet\n\n");
    EXPECT_EQ(resolve().interpreter, m_dir.path() / "system/bin/python3");
}

TEST_F(PyenvShim, APrefixPicksTheHighestInstalledRelease) {
    m_dir.write("pyenv/versions/3.11.10/bin/python3", executable, 0755);
    m_lookup.variables["PYENV_VERSION"] = "3.11";
    EXPECT_EQ(resolve().interpreter, version("3.11.10")); // 10 > 7, as numbers
    m_lookup.variables["PYENV_VERSION"] = "python-3.12";
    EXPECT_EQ(resolve().interpreter, version("3.12.1"));
    m_lookup.variables["PYENV_VERSION"] = "python-3.12.1";
    EXPECT_EQ(resolve().interpreter, version("3.12.1"));
}

TEST_F(PyenvShim, APrefixWithPreReleasesIsLeftToPyenv) {
    m_dir.write("pyenv/versions/3.11-dev/bin/python3", executable, 0755);
    m_lookup.variables["PYENV_VERSION"] = "3.11";
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

// pyenv 2.6 then quietly runs the system Python, older versions fail: pyenv decides, and says.
TEST_F(PyenvShim, AVersionNotInstalledRunsTheShim) {
    m_dir.write("work/.python-version", "3.9.1\n");
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::run_shim);
    EXPECT_EQ(resolution.reason, "pyenv version '3.9.1' (set by " +
                                     (m_dir.path() / "work/.python-version").string() +
                                     ") is not installed");
    m_lookup.variables["PYENV_VERSION"] = "3.12.1:3.9.1";
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

TEST_F(PyenvShim, NoSelectedVersionWithTheCommandRunsTheShim) {
    m_lookup.variables["PYENV_VERSION"] = "2.7.18";
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

TEST_F(PyenvShim, APathInAVersionFileRunsTheShim) {
    m_dir.write("work/.python-version", "../../../usr\n");
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

TEST_F(PyenvShim, APluginHookRunsTheShim) {
    m_lookup.variables["PYENV_VERSION"] = "3.11.7";
    ASSERT_EQ(resolve().verdict, Verdict::resolved); // pip-rehash.bash is harmless
    m_dir.write("pyenv/plugins/custom/etc/pyenv.d/version-name/pick.bash", "PYENV_VERSION=x\n");
    ShimResolution resolution = resolve();
    EXPECT_EQ(resolution.verdict, Verdict::run_shim);
    EXPECT_NE(resolution.reason.find("pick.bash"), std::string::npos);
}

TEST_F(PyenvShim, AShimOutsideItsRootRunsTheShim) {
    fs::path copy = m_dir.path() / "other/python3";
    fs::create_directories(copy.parent_path());
    fs::copy_file(m_shim, copy);
    m_shim = copy;
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

TEST(Shim, InterpretersAndOtherScriptsAreNoShims) {
    test::TempDir dir;
    Lookup lookup{"", dir.path(), {}};
    EXPECT_EQ(resolve_shim(dir.write("bin/python3",
                                     "\x7f"
                                     "ELF\x02\x01\x01",
                                     0755),
                           lookup)
                  .verdict,
              Verdict::not_a_shim);
    EXPECT_EQ(
        resolve_shim(dir.write("bin/wrapper", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 0755),
                     lookup)
            .verdict,
        Verdict::not_a_shim);
    EXPECT_EQ(resolve_shim(dir.path() / "missing", lookup).verdict, Verdict::not_a_shim);
}

// An asdf data directory with python 3.11.7 and 3.12.1 installed.
class AsdfShim : public ::testing::Test {
protected:
    void SetUp() override {
        m_shim = m_dir.write("home/.asdf/shims/python3",
                             "#!/usr/bin/env bash\n# asdf-plugin: python 3.11.7\n"
                             "# asdf-plugin: python 3.12.1\n"
                             "exec asdf exec \"python3\" \"$@\" # asdf_allow: ' asdf '\n",
                             0755);
        for (const char* version : {"3.11.7", "3.12.1"}) {
            m_dir.write(std::string("home/.asdf/installs/python/") + version + "/bin/python3",
                        executable, 0755);
        }
        m_dir.write("system/bin/python3", executable, 0755);
        fs::create_directories(cwd());
        m_lookup.path_env =
            m_shim.parent_path().string() + ":" + (m_dir.path() / "system/bin").string();
        m_lookup.working_directory = cwd();
        m_lookup.variables["HOME"] = (m_dir.path() / "home").string();
    }
    fs::path cwd() const { return m_dir.path() / "work/project"; }
    fs::path version(const std::string& name) const {
        return m_dir.path() / "home/.asdf/installs/python" / name / "bin/python3";
    }
    ShimResolution resolve() const { return resolve_shim(m_shim, m_lookup); }

    test::TempDir m_dir;
    fs::path m_shim;
    Lookup m_lookup;
};

TEST_F(AsdfShim, TheNearestToolVersionsWithAPythonLineWins) {
    m_dir.write("home/.tool-versions", "python 3.12.1\n");
    m_dir.write("work/.tool-versions", "# tools\npython 3.11.7 # pinned\nnodejs 20.1.0\n");
    m_dir.write("work/project/.tool-versions", "nodejs 21.0.0\n"); // no python: look further up
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, version("3.11.7"));
    EXPECT_EQ(resolution.selection,
              "asdf 3.11.7 (set by " + (m_dir.path() / "work/.tool-versions").string() + ")");
}

TEST_F(AsdfShim, TheHomeFileIsTheLastResort) {
    m_dir.write("home/.tool-versions", "python 3.12.1\n");
    EXPECT_EQ(resolve().interpreter, version("3.12.1"));
}

TEST_F(AsdfShim, TheVariableOverridesFilesAndSeveralVersionsFallThrough) {
    m_dir.write("work/.tool-versions", "python 3.11.7\n");
    m_lookup.variables["ASDF_PYTHON_VERSION"] = "3.9.1 3.12.1";
    ShimResolution resolution = resolve();
    ASSERT_EQ(resolution.verdict, Verdict::resolved) << resolution.reason;
    EXPECT_EQ(resolution.interpreter, version("3.12.1"));
    EXPECT_EQ(resolution.selection, "asdf 3.9.1 3.12.1 (set by ASDF_PYTHON_VERSION)");
}

TEST_F(AsdfShim, SystemIsTheNextPythonOnPath) {
    m_dir.write("work/.tool-versions", "python system\n");
    EXPECT_EQ(resolve().interpreter, m_dir.path() / "system/bin/python3");
}

TEST_F(AsdfShim, ADataDirectoryFromTheVariable) {
    m_lookup.variables["ASDF_DATA_DIR"] = (m_dir.path() / "elsewhere").string();
    m_dir.write("work/.tool-versions", "python 3.11.7\n");
    EXPECT_EQ(resolve().verdict, Verdict::run_shim); // the shim is not in $ASDF_DATA_DIR/shims
}

TEST_F(AsdfShim, NothingInstalledNothingSetOrLegacyFilesRunTheShim) {
    m_dir.write("work/.tool-versions", "python 3.9.1\n");
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
    m_dir.write("work/.tool-versions", "nodejs 20.1.0\n");
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
    m_dir.write("work/.tool-versions", "python 3.11.7\n");
    ASSERT_EQ(resolve().verdict, Verdict::resolved);
    m_dir.write("home/.asdfrc", "legacy_version_file = yes\n");
    EXPECT_EQ(resolve().verdict, Verdict::run_shim);
}

} // namespace
} // namespace colossalai::python
