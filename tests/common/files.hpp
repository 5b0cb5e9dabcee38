#pragma once

// Scratch directories and whole files, for any test (unit or end-to-end).

#include <filesystem>
#include <string>

namespace colossalai::test {

// A fresh directory, removed with everything in it when the object dies.
class TempDir {
public:
    explicit TempDir(const std::string& tag = "colossalai-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

    // Writes `relative` (creating its directories) with the given mode; returns its full path.
    std::filesystem::path write(const std::string& relative, const std::string& content,
                                unsigned mode = 0644) const;

private:
    std::filesystem::path m_path;
};

// Writes `content` to `path` (creating parent directories) with the given mode.
void write_file(const std::filesystem::path& path, const std::string& content,
                unsigned mode = 0644);

// Reads a whole file; empty when it does not exist.
std::string read_file(const std::filesystem::path& path);

} // namespace colossalai::test
