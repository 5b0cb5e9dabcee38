#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::check {

// The version a shared library's file name carries: ("libnccl.so.2.18.3", "libnccl.so") ->
// "2.18.3". nullopt for another library, the bare name, or a suffix that is not dotted numbers.
std::optional<std::string> library_file_version(std::string_view file_name, std::string_view stem);

struct LibraryFile {
    std::filesystem::path path;         // the file that carries the version (or the one found)
    std::optional<std::string> version; // "2.18.3"; nullopt when no name says it
};

// Looks for `stem` ("libnccl.so") in `dirs`, in order, as the loader would: the first directory
// holding `stem` or a versioned file of it wins. Its version is the newest one that a file name
// (or the target of a `stem.N` symlink) carries.
std::optional<LibraryFile> find_library(const std::vector<std::filesystem::path>& dirs,
                                        std::string_view stem);

// The version nccl.h defines: NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH ("2.28.9"); nullopt unless all
// three are `#define`d as numbers.
std::optional<std::string> parse_nccl_header(std::string_view header);

// Total size of the file system holding `path` (statvfs), nullopt when it cannot be read.
std::optional<std::uint64_t> filesystem_size(const std::filesystem::path& path);

// "64 MiB", "1.0 GiB", "31.5 GiB": MiB below 1 GiB (rounded down), else GiB with one decimal.
std::string format_size(std::uint64_t bytes);

// A colon-separated list of directories (LD_LIBRARY_PATH), without empty entries.
std::vector<std::filesystem::path> split_directories(std::string_view list);

} // namespace colossalai::check
