#include "support.hpp"

#include <gtest/gtest.h>

#include <regex>

// `colossalai --version`: the release, the commit, the libssh that SSH would use.
namespace colossalai::test {
namespace {

TEST(Version, NamesTheReleaseTheCommitAndLibssh) {
    RunResult result = run_colossalai({"--version"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::regex_match(result.out, std::regex("colossalai [0-9]+\\.[0-9]+\\.[0-9]+\n"
                                                        "commit [^\n]+\n"
                                                        "libssh [0-9]+\\.[0-9]+\\.[0-9]+[^\n]*\n")))
        << result.out;
    EXPECT_EQ(result.err, "");
}

TEST(Version, SaysWhatToInstallWhenLibsshCannotBeLoaded) {
    // A libssh.so.4 that is no library, found first through LD_LIBRARY_PATH.
    TempDir dir("colossalai-version");
    write_file(dir / "libssh.so.4", "not a shared object\n");
    std::map<std::string, std::string> env = current_environment();
    env["LD_LIBRARY_PATH"] = dir.path().string();
    RunOptions options;
    options.env = env;
    RunResult result = run_colossalai({"--version"}, options);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("\nlibssh none: SSH needs libssh (libssh.so.4), which cannot be "
                              "loaded: "),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("(install the package libssh-4)\n"), std::string::npos) << result.out;
}

} // namespace
} // namespace colossalai::test
