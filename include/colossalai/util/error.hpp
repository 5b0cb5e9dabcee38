#pragma once

#include <fmt/core.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace colossalai {

// The one exception type for errors that reach the user. It is caught once, in main:
// a usage error prints `Error: <message>` plus a hint to --help and exits 2; any other
// error prints `colossalai: error: <message>` and exits 1. Messages are one line.
class Error : public std::runtime_error {
public:
    enum class Kind { usage, runtime };

    explicit Error(std::string message, Kind kind = Kind::runtime)
        : std::runtime_error(std::move(message)), m_kind(kind) {}

    Kind kind() const { return m_kind; }
    int exit_code() const { return m_kind == Kind::usage ? 2 : 1; }

private:
    Kind m_kind;
};

// A bad command line or bad input file: exit 2, nothing launched.
template <typename... Args>
Error usage_error(fmt::format_string<Args...> format, Args&&... args) {
    return Error(fmt::format(format, std::forward<Args>(args)...), Error::Kind::usage);
}

// Anything else that ends the command (a file that cannot be read, a process that cannot be
// started): exit 1. Named apart from std::runtime_error, which it is not.
template <typename... Args>
Error fatal_error(fmt::format_string<Args...> format, Args&&... args) {
    return Error(fmt::format(format, std::forward<Args>(args)...), Error::Kind::runtime);
}

} // namespace colossalai
