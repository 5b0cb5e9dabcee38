#pragma once

#include "colossalai/python/environment.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace colossalai::python {

// discover() for callers that run often and need only the search path (`colossalai run`):
// a hit costs a few stat() calls instead of starting the interpreter (tens of milliseconds, or
// far more behind a pyenv shim). `cache_dir` is where entries live (e.g.
// ~/.cache/colossalai/python); nullopt disables the cache. Failing to read or write the cache is
// never an error. `check` does not use this: it asks the interpreter every time. A version
// manager's shim is resolved first (python/shim.hpp): the entry is that of the interpreter it
// names, keyed also by the selection (tool, versions, the file or variable that set them).
Discovery discover_cached(const Lookup& lookup,
                          const std::optional<std::filesystem::path>& cache_dir,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));

// The default cache directory: $XDG_CACHE_HOME/colossalai/python, else
// $HOME/.cache/colossalai/python; nullopt when neither variable is set.
std::optional<std::filesystem::path>
default_cache_dir(const std::map<std::string, std::string>& env);

} // namespace colossalai::python
