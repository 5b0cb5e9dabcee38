#pragma once

// A step engine's task script (slurm's srun_task_script, mpirun's mpirun_task_script) run by a
// real /bin/sh, as the unit tests of both run it.

#include "files.hpp"
#include "task_markers.hpp"

#include "colossalai/util/quote.hpp"

#include <cstdio>
#include <string>
#include <variant>

namespace colossalai::test {

// Runs `script` with `variables` (what the launcher sets for a task, as shell assignments), both
// streams on one pipe, and reads it line by line as the launcher reads a task's lines (frames
// decoded); `after` is shell text run after it (`; echo "[$?]"`: its exit status). A getent that
// finds every name (or, with `resolves` false, none) comes first on PATH: the preflight's
// master-address check looks no name up for real. `path` replaces the rest of PATH. With `go`
// (a signal's name, `USR1`), the script runs in the background and gets it once it printed its
// ready marker (step/task_lines.hpp), as mpirun's tasks are let go; with `go_after` too, only
// once that file is not empty (a fake program's PID: the go then finds it running).
inline std::string run_task_script(const std::string& script, const std::string& variables,
                                   bool resolves = true, const std::string& path = "/usr/bin:/bin",
                                   const std::string& after = "", const std::string& go = "",
                                   const std::string& go_after = "") {
    TempDir bin;
    bin.write("getent", resolves ? "#!/bin/sh\nexit 0\n" : "#!/bin/sh\nexit 2\n", 0755);
    std::string command = "PATH=" + util::shell_quote(bin.path().string() + ":" + path) + " " +
                          variables + " /bin/sh -c " + util::shell_quote(script) +
                          " colossalai-task";
    if (go.empty()) {
        command += " 2>&1" + after;
    } else {
        std::string out = util::shell_quote((bin.path() / "out").string());
        command = "{ " + command + " >" + out + " 2>&1 & p=$!; while kill -0 $p 2>/dev/null && " +
                  "! { grep -qs colossalai-task-ready " + out +
                  (go_after.empty() ? "" : " && [ -s " + util::shell_quote(go_after) + " ]") +
                  "; }; do sleep 0.02; done; kill -" + go + " $p 2>/dev/null; wait $p; }" + after +
                  "; cat " + out;
    }
    FILE* pipe = ::popen(command.c_str(), "r");
    std::string out;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
        out.append(buffer, n);
    }
    ::pclose(pipe);
    std::string read;
    size_t begin = 0;
    for (size_t end; (end = out.find('\n', begin)) != std::string::npos; begin = end + 1) {
        std::string line = out.substr(begin, end - begin);
        step::TaskLine said = step::read_task_line(line);
        const auto* frame = std::get_if<step::Frame>(&said);
        read += frame != nullptr ? frame->bytes : line + "\n";
    }
    return read + out.substr(begin);
}

// A line the task of node `rank` writes itself (a marker), as run_task_script() returns it.
inline std::string said(int rank, std::string_view marker, const std::string& rest) {
    return task_line(static_cast<std::size_t>(rank), std::string(marker) + rest) + "\n";
}

} // namespace colossalai::test
