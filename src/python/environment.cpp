#include "colossalai/python/environment.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/python/distributions.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <system_error>

namespace colossalai::python {

namespace fs = std::filesystem;

std::vector<std::string> probe_command(const fs::path& interpreter) {
    // One short call: site is imported (so site-packages and .pth entries are on sys.path), torch
    // is not. NUL separators survive any byte a path may hold except NUL itself.
    return {interpreter.string(), "-c",
            "import sys;sys.stdout.write('\\0'.join([sys.version.split()[0],"
            "sys.executable]+sys.path))"};
}

std::optional<Environment> parse_probe_output(const fs::path& interpreter,
                                              std::string_view output) {
    std::vector<std::string> fields;
    size_t start = 0;
    while (start <= output.size()) {
        size_t end = output.find('\0', start);
        if (end == std::string_view::npos) {
            end = output.size();
        }
        fields.emplace_back(output.substr(start, end - start));
        start = end + 1;
    }
    if (fields.size() < 2 || fields[0].empty() || fields[0].front() < '0' ||
        fields[0].front() > '9') {
        return std::nullopt;
    }
    Environment environment;
    environment.interpreter = interpreter;
    environment.version = fields[0];
    environment.executable = fields[1];
    for (size_t i = 2; i < fields.size(); ++i) {
        if (fields[i].empty()) {
            continue; // the current directory: not part of the installed environment
        }
        fs::path entry(fields[i]);
        if (std::find(environment.search_path.begin(), environment.search_path.end(), entry) ==
            environment.search_path.end()) {
            environment.search_path.push_back(std::move(entry));
        }
    }
    return environment;
}

std::optional<fs::path> resolve_interpreter(const std::optional<std::string>& explicit_interpreter,
                                            const std::string& path_env) {
    if (!explicit_interpreter) {
        if (auto found = util::find_in_path("python3", path_env)) {
            return found;
        }
        return util::find_in_path("python", path_env);
    }
    const std::string& given = *explicit_interpreter;
    if (!given.empty() && given.find('/') == std::string::npos) {
        // A bare name (`--python python3.11`) is looked up in PATH, as a shell would.
        if (auto found = util::find_in_path(given, path_env)) {
            return found;
        }
        throw usage_error("--python '{}': not found in PATH", util::escape_for_message(given));
    }
    if (!util::is_executable_file(given)) {
        throw usage_error("--python '{}': not an executable file", util::escape_for_message(given));
    }
    return fs::path(given);
}

std::optional<Located> locate_interpreter(const std::optional<std::string>& explicit_interpreter,
                                          const Lookup& lookup) {
    std::optional<fs::path> found = resolve_interpreter(explicit_interpreter, lookup.path_env);
    if (!found) {
        return std::nullopt;
    }
    ShimResolution shim = resolve_shim(*found, lookup);
    if (shim.verdict == ShimResolution::Verdict::resolved) {
        return Located{shim.interpreter, shim.selection};
    }
    return Located{*found, ""};
}

Discovery discover(const std::optional<std::string>& explicit_interpreter, const Lookup& lookup,
                   std::chrono::milliseconds timeout) {
    Discovery discovery;
    std::optional<Located> located = locate_interpreter(explicit_interpreter, lookup);
    if (!located) {
        return discovery;
    }
    discovery.interpreter = located->interpreter;
    const fs::path& interpreter = *discovery.interpreter;
    exec::CaptureResult result = exec::capture(probe_command(interpreter), timeout);
    if (!result.started) {
        discovery.warning = fmt::format("{}: cannot run: {}; Python values are N/A",
                                        interpreter.string(), result.error);
    } else if (result.timed_out) {
        discovery.warning = fmt::format("{}: no answer within {} s, killed; Python values are N/A",
                                        interpreter.string(), timeout.count() / 1000.0);
    } else if (result.signal != 0) {
        discovery.warning = fmt::format("{}: killed by signal {}; Python values are N/A",
                                        interpreter.string(), result.signal);
    } else if (result.exit_code != 0) {
        discovery.warning = fmt::format("{}: exited with status {}; Python values are N/A",
                                        interpreter.string(), result.exit_code);
    } else {
        discovery.environment = parse_probe_output(interpreter, result.output);
        if (!discovery.environment) {
            discovery.warning =
                fmt::format("{}: unexpected answer to the sys.path query; Python values are N/A",
                            interpreter.string());
        }
    }
    return discovery;
}

std::optional<fs::path> find_package(const Environment& environment, std::string_view name) {
    std::error_code ec;
    for (const fs::path& dir : environment.search_path) {
        fs::path package = dir / name;
        if (!fs::is_directory(package, ec)) {
            continue;
        }
        if (fs::is_regular_file(package / "__init__.py", ec) ||
            fs::is_regular_file(package / "version.py", ec)) {
            return package;
        }
    }
    // The import system's path finder comes first; editable finders are appended to
    // sys.meta_path after it by their .pth files.
    return find_editable_package(environment, name);
}

} // namespace colossalai::python
