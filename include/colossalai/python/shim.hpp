#pragma once

// Version-manager shims (pyenv, asdf) resolved without running them.
//
// A shim is a shell script that works out which installed Python to run from files and variables
// (`.python-version` or `.tool-versions` from the current directory upwards, PYENV_VERSION,
// ...) and then runs it: 100-300 ms per call, and a script whose answer depends on files no
// cache could watch. resolve_shim() reads the same files and variables, in each tool's own
// order, and names the interpreter the shim would run. Whatever it does not understand (an
// unknown shim layout, a version that is not installed, a version prefix with pre-releases,
// a plugin hook that may change the answer, ...) yields run_shim: the caller runs the shim as
// before, and the tool itself decides (and says what it says).
//
// pyenv (2.x; libexec/pyenv-version-name, -version-file, -version-file-read, -which):
//   1. PYENV_VERSION when set and not empty; else the first regular file `.python-version` in
//      $PYENV_DIR (default: the current directory) or one of its parents, then in the current
//      directory or its parents; else $PYENV_ROOT/version. PYENV_ROOT is the one the shim
//      exports. In a file, the first word of each line counts; empty lines and lines starting
//      with `#` are skipped; the words are joined with `:`. A file with no word means `system`.
//   2. The selection is `:`-separated. Each name is a directory under $PYENV_ROOT/versions, or
//      that name without a leading `python-`, or a prefix (`3.11`) of installed versions made of
//      numbers only (the highest wins, as `pyenv latest` picks), or `system`.
//   3. The first selected version whose bin/<command> is executable wins; `system` is the first
//      <command> on PATH with $PYENV_ROOT/shims removed.
// asdf (0.16 and the shell versions before it; internal/resolve):
//   1. ASDF_PYTHON_VERSION when set and not empty (space-separated versions); else the first
//      `.tool-versions` (ASDF_DEFAULT_TOOL_VERSIONS_FILENAME) from the current directory upwards
//      with a `python` line; else $HOME/.tool-versions.
//   2. The first selected version whose $ASDF_DATA_DIR/installs/python/<v>/bin/<command> is
//      executable wins; `system` is the first <command> on PATH without the shims directory.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace colossalai::python {

// What the lookup of an interpreter reads from this machine.
struct Lookup {
    std::string path_env;                         // PATH
    std::filesystem::path working_directory;      // where version-file searches start
    std::map<std::string, std::string> variables; // the environment (at least shim_variables())
};

// The environment variables that resolve_shim() reads.
const std::vector<std::string_view>& shim_variables();

struct ShimResolution {
    enum class Verdict {
        not_a_shim, // an interpreter, or a script of no known version manager: use as it is
        resolved,   // `interpreter` is what the shim would run
        run_shim,   // a shim, but not one resolve_shim() can answer for: run it (`reason`)
    };
    Verdict verdict = Verdict::not_a_shim;
    std::filesystem::path interpreter; // resolved: the real interpreter
    // resolved: the tool, the versions and what selected them, e.g.
    // "pyenv 3.11.7 (set by /work/.python-version)". Cache keys include it.
    std::string selection;
    std::string reason; // run_shim: one line, why
};

// Resolves `found`, an interpreter found on PATH or given, when it is a pyenv or asdf shim.
// Reads a few small files, never runs anything.
ShimResolution resolve_shim(const std::filesystem::path& found, const Lookup& lookup);

} // namespace colossalai::python
