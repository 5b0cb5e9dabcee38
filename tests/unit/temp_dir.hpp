#pragma once

// A scratch directory for unit tests that read files (no processes, no network).

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace colossalai::unit {

class ScratchDir {
public:
    ScratchDir() {
        std::string base = (std::filesystem::temp_directory_path() / "colossalai-unit-XXXXXX");
        if (::mkdtemp(base.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        m_path = base;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }

    // Writes `relative` (creating its directories) and returns its full path.
    std::filesystem::path write(const std::string& relative, const std::string& content,
                                unsigned mode = 0644) const {
        std::filesystem::path file = m_path / relative;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << content;
        ::chmod(file.c_str(), mode);
        return file;
    }

private:
    std::filesystem::path m_path;
};

} // namespace colossalai::unit
