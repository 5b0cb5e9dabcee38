#include "colossalai/util/file.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace colossalai::util {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/colossalai-file-test-XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        m_dir = pattern;
    }
    void TearDown() override { fs::remove_all(m_dir); }

    fs::path write(const std::string& name, const std::string& content, fs::perms perms) {
        fs::path path = m_dir / name;
        std::ofstream(path, std::ios::binary) << content;
        fs::permissions(path, perms);
        return path;
    }

    fs::path m_dir;
};

TEST_F(FileTest, ReadFileReturnsTheBytes) {
    std::string bytes("a\0b\xff\n", 5);
    EXPECT_EQ(read_file(write("f", bytes, fs::perms::owner_read)), bytes);
}

TEST_F(FileTest, ReadFileSaysWhyItFailed) {
    int error = 0;
    EXPECT_EQ(read_file(m_dir / "missing", 100, &error), std::nullopt);
    EXPECT_EQ(error, ENOENT);
    EXPECT_EQ(read_file(m_dir, 100, &error), std::nullopt);
    EXPECT_EQ(error, EISDIR);
    EXPECT_EQ(read_file(write("big", std::string(101, 'x'), fs::perms::owner_read), 100, &error),
              std::nullopt);
    EXPECT_EQ(error, EFBIG);
}

TEST_F(FileTest, ExecutableMeansARegularFileWithTheExecuteBit) {
    EXPECT_TRUE(is_executable_file(write("tool", "", fs::perms::owner_all)));
    EXPECT_FALSE(is_executable_file(write("data", "", fs::perms::owner_read)));
    EXPECT_FALSE(is_executable_file(m_dir)); // a directory has the bit too
    EXPECT_FALSE(is_executable_file(m_dir / "missing"));
}

TEST_F(FileTest, FindInPathTakesTheFirstExecutableLikeExecvp) {
    fs::create_directories(m_dir / "a");
    fs::create_directories(m_dir / "b");
    std::ofstream(m_dir / "a/tool") << "";
    fs::permissions(m_dir / "a/tool", fs::perms::owner_read); // not executable: skipped
    std::ofstream(m_dir / "b/tool") << "";
    fs::permissions(m_dir / "b/tool", fs::perms::owner_all);
    std::string list = (m_dir / "a").string() + ":" + (m_dir / "b").string();
    EXPECT_EQ(find_in_path("tool", list), m_dir / "b/tool");
    EXPECT_EQ(find_in_path("missing", list), std::nullopt);
    EXPECT_EQ(find_in_path("", list), std::nullopt);
    EXPECT_EQ(find_in_path((m_dir / "b/tool").string(), ""), m_dir / "b/tool");
}

// Open descriptors of this process (the directory stream's own counts every time alike).
int open_descriptors() {
    int count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        ++count;
    }
    return count;
}

TEST_F(FileTest, CurrentDirectoryKeepsASymbolicLinkOnlyWhenPwdNamesIt) {
    fs::path physical = fs::current_path();
    fs::path link = m_dir / "link";
    fs::create_directory_symlink(physical, link);
    EXPECT_EQ(current_directory(link.string()), link);      // /home -> /nfs/home stays /home
    EXPECT_EQ(current_directory(m_dir.string()), physical); // another directory: not trusted
    EXPECT_EQ(current_directory(std::string("relative")), physical);
    EXPECT_EQ(current_directory(std::nullopt), physical);
}

TEST(StandardStreams, ClosedOnesAreOpenedOnDevNull) {
    // In a child, so that the test process keeps its own streams.
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int before = open_descriptors();
        ::close(1);
        ::close(2);
        open_missing_standard_streams();
        struct stat out {
        }, err{}, null{};
        bool ok = ::fstat(1, &out) == 0 && ::fstat(2, &err) == 0 &&
                  ::stat("/dev/null", &null) == 0 && out.st_rdev == null.st_rdev &&
                  err.st_rdev == null.st_rdev && (::fcntl(1, F_GETFL) & O_ACCMODE) == O_WRONLY &&
                  open_descriptors() == before; // those two, and nothing left open besides
        ::_exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

} // namespace
} // namespace colossalai::util
