#include "colossalai/util/file.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/fd.hpp"
#include "colossalai/util/strings.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace colossalai::util {

namespace {

void set_error(int* error, int number) {
    if (error != nullptr) {
        *error = number;
    }
}

} // namespace

std::optional<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes,
                                     int* error) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        set_error(error, errno);
        return std::nullopt;
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) == 0 && S_ISDIR(info.st_mode)) {
        set_error(error, EISDIR);
        return std::nullopt;
    }
    std::string content;
    char buffer[65536];
    while (true) {
        ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            set_error(error, errno);
            return std::nullopt;
        }
        if (n == 0) {
            break;
        }
        if (content.size() + static_cast<std::size_t>(n) > max_bytes) {
            set_error(error, EFBIG);
            return std::nullopt;
        }
        content.append(buffer, static_cast<std::size_t>(n));
    }
    return content;
}

bool is_executable_file(const std::filesystem::path& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> find_in_path(const std::string& name,
                                                  const std::string& path_list) {
    if (name.empty()) {
        return std::nullopt;
    }
    if (name.find('/') != std::string::npos) {
        if (is_executable_file(name)) {
            return std::filesystem::path(name);
        }
        return std::nullopt;
    }
    for (const std::string& dir : split(path_list, ':')) {
        std::filesystem::path candidate = (dir.empty() ? std::string(".") : dir);
        candidate /= name;
        if (is_executable_file(candidate)) {
            return candidate;
        }
    }
    return std::nullopt;
}

std::filesystem::path current_directory(const std::optional<std::string>& pwd_env) {
    struct stat named {};
    struct stat here {};
    if (pwd_env && !pwd_env->empty() && pwd_env->front() == '/' &&
        ::stat(pwd_env->c_str(), &named) == 0 && ::stat(".", &here) == 0 &&
        named.st_dev == here.st_dev && named.st_ino == here.st_ino) {
        return *pwd_env;
    }
    std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
    if (!cwd) {
        throw fatal_error("cannot read the current directory: {}", std::strerror(errno));
    }
    return cwd.get();
}

void open_missing_standard_streams() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            // open() returns the lowest free descriptor: this one, since the lower ones are open.
            int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (opened != fd) {
                Fd stray(opened); // another descriptor (closed at once), or none
            }
        }
    }
}

} // namespace colossalai::util
