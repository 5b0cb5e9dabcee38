#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace colossalai::util {

// Reads a whole file. Returns nullopt when it cannot be opened or read, or is larger than
// max_bytes; `error` (if given) receives why, as an errno value: EFBIG for a file larger than
// max_bytes, EISDIR for a directory (std::strerror says it in one line).
std::optional<std::string> read_file(const std::filesystem::path& path,
                                     std::size_t max_bytes = 16 * 1024 * 1024,
                                     int* error = nullptr);

// True when `path` names an executable regular file (following symlinks).
bool is_executable_file(const std::filesystem::path& path);

// Looks `name` up in a PATH-style list (":"-separated; empty entries mean the current
// directory, as execvp does). Names containing '/' are returned as they are when executable.
std::optional<std::filesystem::path> find_in_path(const std::string& name,
                                                  const std::string& path_list);

// The current directory as a shell names it: `pwd_env` ($PWD) when it is absolute and names the
// current directory (it keeps symbolic links, which other machines often share:
// /home -> /nfs/home), else the physical path. Throws util::Error when neither can be read.
std::filesystem::path current_directory(const std::optional<std::string>& pwd_env);

// Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed. A program started with one
// of them closed would otherwise get its first pipe or socket there, and then write its output
// or error messages into a job's pipe or a connection. Call first thing in main().
void open_missing_standard_streams();

} // namespace colossalai::util
