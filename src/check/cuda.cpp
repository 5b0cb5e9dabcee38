#include "colossalai/check/cuda.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"
#include "colossalai/util/version.hpp"

#include <fmt/core.h>

namespace colossalai::check {

namespace fs = std::filesystem;

namespace {

bool is_set(const std::optional<std::string>& value) {
    return value && !value->empty();
}

// True for MAJOR.MINOR with both parts decimal ("12.4", "12.10"), nothing else.
bool is_major_minor(std::string_view text) {
    size_t dot = text.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot + 1 == text.size()) {
        return false;
    }
    for (size_t i = 0; i < text.size(); ++i) {
        if (i != dot && !util::is_ascii_digit(text[i])) {
            return false;
        }
    }
    return true;
}

std::string seconds(std::chrono::milliseconds timeout) {
    return fmt::format("{} s", static_cast<double>(timeout.count()) / 1000.0);
}

} // namespace

std::optional<fs::path> find_cuda_home(const CudaHomeInputs& inputs,
                                       const std::function<bool(const fs::path&)>& exists) {
    if (is_set(inputs.cuda_home_env)) {
        return fs::path(*inputs.cuda_home_env);
    }
    if (is_set(inputs.cuda_path_env)) {
        return fs::path(*inputs.cuda_path_env);
    }
    if (auto nvcc = util::find_in_path("nvcc", inputs.path_env)) {
        // A relative PATH entry would make the home depend on the current directory.
        fs::path bin = fs::absolute(*nvcc).lexically_normal().parent_path();
        return bin.parent_path();
    }
    if (!inputs.default_home.empty() && exists(inputs.default_home)) {
        return fs::path(inputs.default_home);
    }
    return std::nullopt;
}

std::optional<std::string> parse_nvcc_release(std::string_view output) {
    for (std::string_view line : util::split_lines(output)) {
        size_t at = line.find("release ");
        while (at != std::string_view::npos) {
            // "release" must be a word of its own, not the tail of another ("prerelease").
            bool word_start = at == 0 || line[at - 1] == ' ' || line[at - 1] == ',';
            std::string_view rest = util::trim(line.substr(at + 8));
            std::string_view token = rest.substr(0, rest.find_first_of(", \t"));
            // The version rules must be able to compare it (no 40-digit "minor").
            if (word_start && is_major_minor(token) && util::parse_version(token)) {
                return std::string(token);
            }
            at = line.find("release ", at + 1);
        }
    }
    return std::nullopt;
}

SystemCuda probe_system_cuda(const std::optional<fs::path>& home,
                             std::chrono::milliseconds timeout) {
    SystemCuda result;
    result.home = home;
    if (!home) {
        return result;
    }
    fs::path nvcc = *home / "bin" / "nvcc";
    if (!util::is_executable_file(nvcc)) {
        result.warning =
            fmt::format("{}: no executable nvcc; System CUDA version is N/A", nvcc.string());
        return result;
    }
    exec::CaptureResult run =
        exec::capture({nvcc.string(), "-V"}, timeout, std::nullopt, 64 * 1024);
    std::string command = nvcc.string() + " -V";
    if (!run.started) {
        result.warning = fmt::format("{}: cannot run: {}", command, run.error);
    } else if (run.timed_out) {
        result.warning = fmt::format("{}: no answer within {}, killed; System CUDA version is N/A",
                                     command, seconds(timeout));
    } else if (run.signal != 0) {
        result.warning =
            fmt::format("{}: killed by signal {}; System CUDA version is N/A", command, run.signal);
    } else if (run.exit_code != 0) {
        result.warning = fmt::format("{}: exited with status {}; System CUDA version is N/A",
                                     command, run.exit_code);
    } else {
        result.version = parse_nvcc_release(run.output);
        if (!result.version) {
            result.warning = fmt::format(
                "{}: no 'release X.Y' in its output; System CUDA version is N/A", command);
        }
    }
    return result;
}

} // namespace colossalai::check
