#include "files.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace colossalai::test {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
    std::string base = (fs::temp_directory_path() / (tag + "-XXXXXX")).string();
    if (::mkdtemp(base.data()) == nullptr) {
        throw std::runtime_error("mkdtemp failed: " + std::string(std::strerror(errno)));
    }
    m_path = base;
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
}

fs::path TempDir::write(const std::string& relative, const std::string& content,
                        unsigned mode) const {
    fs::path file = m_path / relative;
    write_file(file, content, mode);
    return file;
}

void write_file(const fs::path& path, const std::string& content, unsigned mode) {
    fs::create_directories(path.parent_path());
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << content;
        if (!out) {
            throw std::runtime_error("cannot write " + path.string());
        }
    }
    ::chmod(path.c_str(), mode);
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

} // namespace colossalai::test
