#include "files.hpp"

#include "colossalai/check/system.hpp"

#include <gtest/gtest.h>

namespace colossalai::check {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

TEST(LibraryFileVersion, TheDottedNumbersAfterTheStem) {
    EXPECT_EQ(library_file_version("libnccl.so.2.18.3", "libnccl.so"), "2.18.3");
    EXPECT_EQ(library_file_version("libnccl.so.2", "libnccl.so"), "2");
    EXPECT_EQ(library_file_version("libnccl.so", "libnccl.so"), std::nullopt);
    EXPECT_EQ(library_file_version("libnccl.so.", "libnccl.so"), std::nullopt);
    EXPECT_EQ(library_file_version("libnccl.so.2..3", "libnccl.so"), std::nullopt);
    EXPECT_EQ(library_file_version("libnccl.so.2.18.3.bak", "libnccl.so"), std::nullopt);
    EXPECT_EQ(library_file_version("libnccl_static.a", "libnccl.so"), std::nullopt);
    EXPECT_EQ(library_file_version("libnccl.sox.2", "libnccl.so"), std::nullopt);
}

TEST(FindLibrary, FirstDirectoryWinsWithItsNewestVersion) {
    TempDir root;
    root.write("b/libnccl.so.2.18.3", "");
    root.write("b/libnccl.so.2.9.9", "");
    root.write("c/libnccl.so.2.21.5", "");
    root.write("a/libcudart.so.12", "");
    std::vector<fs::path> dirs{root.path() / "missing", root.path() / "a", root.path() / "b",
                               root.path() / "c"};
    auto found = find_library(dirs, "libnccl.so");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->version, "2.18.3");
    EXPECT_EQ(found->path, root.path() / "b/libnccl.so.2.18.3");
    EXPECT_FALSE(find_library(dirs, "libcudnn.so"));
}

TEST(FindLibrary, SonameSymlinkGivesItsTargetsVersion) {
    TempDir root;
    root.write("lib/libnccl.so.2.19.3", "");
    fs::create_symlink("libnccl.so.2.19.3", root.path() / "lib/libnccl.so.2");
    root.write("only/libnccl.so.2", ""); // a regular file: no version in any name
    auto linked = find_library({root.path() / "lib"}, "libnccl.so");
    ASSERT_TRUE(linked);
    EXPECT_EQ(linked->version, "2.19.3");
    EXPECT_EQ(linked->path, root.path() / "lib/libnccl.so.2.19.3");
    auto bare = find_library({root.path() / "only"}, "libnccl.so");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->version, std::nullopt);
    EXPECT_EQ(bare->path, root.path() / "only/libnccl.so.2");
}

TEST(ParseNcclHeader, AllThreeNumbersOrNothing) {
    EXPECT_EQ(parse_nccl_header("#ifndef NCCL_H_\n#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n"
                                "#define NCCL_PATCH 9\n#define NCCL_SUFFIX \"\"\n"),
              "2.28.9");
    EXPECT_EQ(parse_nccl_header("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n"), std::nullopt);
    EXPECT_EQ(parse_nccl_header("#define NCCL_MAJOR x\n#define NCCL_MINOR 1\n"
                                "#define NCCL_PATCH 1\n"),
              std::nullopt);
    EXPECT_EQ(parse_nccl_header("#define NCCL_MAJORX 2\n"), std::nullopt);
}

TEST(FormatSize, MibBelowAGibElseOneDecimal) {
    EXPECT_EQ(format_size(64ULL << 20), "64 MiB");
    EXPECT_EQ(format_size((1ULL << 30) - 1), "1023 MiB");
    EXPECT_EQ(format_size(1ULL << 30), "1.0 GiB");
    EXPECT_EQ(format_size(31ULL * (1ULL << 30) + (1ULL << 29)), "31.5 GiB");
    EXPECT_EQ(format_size(0), "0 MiB");
}

TEST(FilesystemSize, OfAnExistingDirectoryOnly) {
    TempDir root;
    EXPECT_GT(filesystem_size(root.path()).value_or(0), 0u);
    EXPECT_EQ(filesystem_size(root.path() / "missing"), std::nullopt);
}

TEST(SplitDirectories, DropsEmptyEntries) {
    EXPECT_EQ(split_directories("/a::/b:"), (std::vector<fs::path>{"/a", "/b"}));
    EXPECT_EQ(split_directories(""), std::vector<fs::path>{});
}

} // namespace
} // namespace colossalai::check
