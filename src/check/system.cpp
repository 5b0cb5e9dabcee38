#include "colossalai/check/system.hpp"

#include "colossalai/util/strings.hpp"
#include "colossalai/util/version.hpp"

#include <fmt/core.h>

#include <sys/statvfs.h>

#include <algorithm>
#include <system_error>

namespace colossalai::check {

namespace fs = std::filesystem;

namespace {

constexpr size_t npos = std::string_view::npos;

bool is_dotted_number(std::string_view text) {
    if (text.empty() || text.front() == '.' || text.back() == '.') {
        return false;
    }
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '.' ? text[i - 1] == '.' : (c < '0' || c > '9')) {
            return false;
        }
    }
    return true;
}

} // namespace

std::optional<std::string> library_file_version(std::string_view file_name, std::string_view stem) {
    if (!util::starts_with(file_name, stem) || file_name.size() <= stem.size() + 1 ||
        file_name[stem.size()] != '.') {
        return std::nullopt;
    }
    std::string_view version = file_name.substr(stem.size() + 1);
    if (!is_dotted_number(version)) {
        return std::nullopt;
    }
    return std::string(version);
}

std::optional<LibraryFile> find_library(const std::vector<fs::path>& dirs, std::string_view stem) {
    std::error_code ec;
    for (const fs::path& dir : dirs) {
        std::optional<LibraryFile> found;
        std::optional<util::Version> newest;
        auto consider = [&](const fs::path& path, const std::string& name) {
            std::optional<std::string> version = library_file_version(name, stem);
            if (!found) {
                found = LibraryFile{path, std::nullopt};
            }
            auto parsed = version ? util::parse_version(*version) : std::nullopt;
            // Only a MAJOR.MINOR(.PATCH) name says the release; `libnccl.so.2` is the soname.
            if (parsed && version->find('.') != std::string::npos &&
                (!newest || *newest < *parsed)) {
                newest = parsed;
                found = LibraryFile{path, version};
            }
        };
        std::vector<fs::path> entries; // sorted: the answer must not depend on readdir order
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            std::string name = entry.path().filename().string();
            if (name == stem || library_file_version(name, stem)) {
                entries.push_back(entry.path());
            }
        }
        std::sort(entries.begin(), entries.end());
        for (const fs::path& path : entries) {
            if (fs::is_symlink(fs::symlink_status(path, ec))) {
                fs::path target = fs::read_symlink(path, ec);
                if (!ec) {
                    // The file a link names is the one to report (and may carry the version).
                    consider(target.is_absolute() ? target : dir / target,
                             target.filename().string());
                }
            }
            consider(path, path.filename().string());
        }
        if (found) {
            return found;
        }
    }
    return std::nullopt;
}

std::optional<std::string> parse_nccl_header(std::string_view header) {
    std::optional<std::string> parts[3];
    const char* names[3] = {"NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"};
    for (std::string_view line : util::split_lines(header)) {
        line = util::trim(line);
        if (!util::starts_with(line, "#define ")) {
            continue;
        }
        std::string_view rest = util::trim(line.substr(8));
        for (int i = 0; i < 3; ++i) {
            std::string_view name = names[i];
            if (util::starts_with(rest, name) && rest.size() > name.size() &&
                (rest[name.size()] == ' ' || rest[name.size()] == '\t')) {
                std::string_view number = util::trim(rest.substr(name.size()));
                // At most 9 digits: a version number, never one that overflows an int.
                if (!number.empty() && number.size() <= 9 &&
                    number.find_first_not_of("0123456789") == npos) {
                    parts[i] = std::string(number);
                }
            }
        }
    }
    if (!parts[0] || !parts[1] || !parts[2]) {
        return std::nullopt;
    }
    return *parts[0] + "." + *parts[1] + "." + *parts[2];
}

std::optional<std::uint64_t> filesystem_size(const fs::path& path) {
    struct statvfs info {};
    if (::statvfs(path.c_str(), &info) != 0) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(info.f_blocks) * info.f_frsize;
}

std::string format_size(std::uint64_t bytes) {
    constexpr std::uint64_t mib = 1024 * 1024;
    constexpr std::uint64_t gib = 1024 * mib;
    if (bytes < gib) {
        return fmt::format("{} MiB", bytes / mib);
    }
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(gib));
}

std::vector<fs::path> split_directories(std::string_view list) {
    std::vector<fs::path> dirs;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(':', start);
        std::string_view entry =
            list.substr(start, end == std::string_view::npos ? end : end - start);
        if (!entry.empty()) {
            dirs.emplace_back(entry);
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return dirs;
}

} // namespace colossalai::check
