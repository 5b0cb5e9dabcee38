// The pyenv and asdf rules that resolve_shim() follows, on text and names alone: the edge cases
// of each tool's file format and version choice that the trees of shim_test.cpp do not reach.

#include "shim_resolvers.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace colossalai::python::shim_detail {
namespace {

namespace fs = std::filesystem;
using Words = std::vector<std::string>;

TEST(PyenvVersionFileText, TheFirstWordOfEachLineSkippingBlanksAndComments) {
    PyenvVersionFile read =
        parse_pyenv_version_file("# the project's\n\n  3.11.7 extra words\r\n\t3.12.1\t# why\n");
    EXPECT_EQ(read.versions, (Words{"3.11.7", "3.12.1"}));
    EXPECT_FALSE(read.path_word);
}

TEST(PyenvVersionFileText, NothingButCommentsIsNoVersion) {
    EXPECT_TRUE(parse_pyenv_version_file("#3.11.7\n   \n").versions.empty());
    EXPECT_TRUE(parse_pyenv_version_file("").versions.empty());
}

TEST(PyenvVersionFileText, AWordNamingAPathStopsTheReading) {
    PyenvVersionFile up = parse_pyenv_version_file("3.11.7\n..\n3.12.1\n");
    EXPECT_EQ(up.path_word, "..");
    EXPECT_EQ(up.versions, (Words{"3.11.7"}));
    EXPECT_EQ(parse_pyenv_version_file("../../etc\n").path_word, "../../etc");
    // `.` alone and names with dots are versions, not paths.
    EXPECT_EQ(parse_pyenv_version_file(".\n3.11..7\n").versions, (Words{".", "3.11..7"}));
}

TEST(PyenvLatest, TheHighestReleaseComparedNumberByNumber) {
    PrefixMatch match = latest_with_prefix({"3.11.9", "3.11.10", "3.12.1", "3.11.2"}, "3.11");
    EXPECT_EQ(match.kind, PrefixMatch::Kind::found);
    EXPECT_EQ(match.name, "3.11.10");
    EXPECT_EQ(latest_with_prefix({"3.11.7", "3.12.1"}, "3").name, "3.12.1");
}

TEST(PyenvLatest, OnlyWholeComponentsAfterThePrefixMatch) {
    // 3.110 is not a 3.11, nor is 3.11 itself (a directory of that name is used as it is).
    EXPECT_EQ(latest_with_prefix({"3.110.1", "3.11", "3.11."}, "3.11").kind,
              PrefixMatch::Kind::none);
    EXPECT_EQ(latest_with_prefix({}, "3.11").kind, PrefixMatch::Kind::none);
}

TEST(PyenvLatest, ACandidateWithPyenvsOwnSortingRulesIsUnusual) {
    for (const char* odd : {"3.11-dev", "3.11.0rc1", "3.11.9t", "3.11.1234567890"}) {
        PrefixMatch match = latest_with_prefix({"3.11.7", odd, "3.11.9"}, "3.11");
        EXPECT_EQ(match.kind, PrefixMatch::Kind::unusual) << odd;
    }
    // Versions of another prefix do not count.
    EXPECT_EQ(latest_with_prefix({"3.12-dev", "3.11.7"}, "3.11").name, "3.11.7");
}

TEST(ToolVersionsText, TheWordsAfterTheFirstPythonLine) {
    EXPECT_EQ(tool_versions_python("nodejs 20.1.0\npython\t3.11.7  system # fallback\n"
                                   "python 3.12.1\n"),
              (Words{"3.11.7", "system"}));
}

TEST(ToolVersionsText, APythonLineWithoutVersionsOrACommentedOneIsNone) {
    EXPECT_EQ(tool_versions_python("python\n# python 3.11.7\npythonx 3.12.1\n"), std::nullopt);
    EXPECT_EQ(tool_versions_python("python\npython 3.12.1\n"), (Words{"3.12.1"}));
}

TEST(Asdfrc, LegacyVersionFilesOnlyWhenSetToYes) {
    EXPECT_TRUE(
        asdfrc_reads_legacy_files("always_keep_download = no\n legacy_version_file =yes \n"));
    EXPECT_FALSE(asdfrc_reads_legacy_files("legacy_version_file = no\n"));
    EXPECT_FALSE(asdfrc_reads_legacy_files("legacy_version_file\nlegacy_version_file = yes!\n"));
    EXPECT_FALSE(asdfrc_reads_legacy_files(""));
}

TEST(ToolVersionsCandidates, EveryDirectoryUpToTheRootThenHome) {
    EXPECT_EQ(tool_versions_candidates("/work/./project", ".tool-versions", "/home/u"),
              (std::vector<fs::path>{"/work/project/.tool-versions", "/work/.tool-versions",
                                     "/.tool-versions", "/home/u/.tool-versions"}));
    EXPECT_EQ(tool_versions_candidates("/", "versions.txt", std::nullopt),
              (std::vector<fs::path>{"/versions.txt"}));
}

} // namespace
} // namespace colossalai::python::shim_detail
