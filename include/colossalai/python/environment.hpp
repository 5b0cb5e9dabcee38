#pragma once

#include "colossalai/python/shim.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::python {

// The Python environment a user would train in, as its interpreter reports it.
struct Environment {
    std::filesystem::path interpreter;              // the path used to run it
    std::string version;                            // "3.11.7"
    std::string executable;                         // sys.executable
    std::vector<std::filesystem::path> search_path; // sys.path, without '' and duplicates
};

struct Discovery {
    std::optional<std::filesystem::path> interpreter; // what was found or given, even if it failed
    std::optional<Environment> environment;           // set when the interpreter answered
    std::optional<std::string> warning;               // one line: why it did not answer
};

// The interpreter to use: `explicit_interpreter` (a bare name is looked up in `path_env`), else
// the first `python3`, then `python`, in `path_env`; nullopt when there is none. Throws a usage
// error when `explicit_interpreter` is not an executable file or a name not found in `path_env`.
std::optional<std::filesystem::path>
resolve_interpreter(const std::optional<std::string>& explicit_interpreter,
                    const std::string& path_env);

// resolve_interpreter()'s interpreter with a version manager's shim replaced by the interpreter
// the shim would run (python/shim.hpp); a shim that cannot be resolved stays as it is.
struct Located {
    std::filesystem::path interpreter; // what to run
    std::string selection; // a resolved shim's selection ("pyenv 3.11.7 (set by ...)"), else ""
};
std::optional<Located> locate_interpreter(const std::optional<std::string>& explicit_interpreter,
                                          const Lookup& lookup);

// Finds the interpreter as locate_interpreter() does and runs it once, with `timeout`, to read
// its version and sys.path. Never imports torch. A hung, crashing or silent interpreter yields an
// empty environment and a warning. Throws resolve_interpreter()'s usage errors.
Discovery discover(const std::optional<std::string>& explicit_interpreter, const Lookup& lookup,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

// The argv of the one interpreter call that discover() makes (tests use it with fake pythons).
std::vector<std::string> probe_command(const std::filesystem::path& interpreter);

// Parses that call's output: NUL-separated version, sys.executable, then sys.path entries.
std::optional<Environment> parse_probe_output(const std::filesystem::path& interpreter,
                                              std::string_view output);

// Finds `name` as `import name` would, without importing: the first search-path directory that
// holds it as a package (`<dir>/<name>/` with an `__init__.py` or a `version.py`), else the
// directory an editable install's finder maps it to (find_editable_package). Returns the package
// directory.
std::optional<std::filesystem::path> find_package(const Environment& environment,
                                                  std::string_view name);

} // namespace colossalai::python
