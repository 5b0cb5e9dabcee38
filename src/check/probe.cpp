#include "colossalai/check/probe.hpp"

#include "colossalai/check/driver.hpp"
#include "colossalai/check/packages.hpp"
#include "colossalai/check/system.hpp"
#include "colossalai/exec/capture.hpp"
#include "colossalai/python/environment.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <future>
#include <system_error>

namespace colossalai::check {

namespace fs = std::filesystem;

namespace {

// What execvp uses when PATH is unset.
constexpr const char* default_path = "/bin:/usr/bin";

std::chrono::milliseconds parse_timeout(const std::string& text) {
    std::optional<long long> value =
        util::parse_integer<long long>(text, {.min = 1, .max = 24LL * 3600 * 1000});
    if (!value) {
        throw usage_error("COLOSSALAI_PROBE_TIMEOUT_MS='{}': expected a whole number of "
                          "milliseconds between 1 and 86400000",
                          util::escape_for_message(text));
    }
    return std::chrono::milliseconds(*value);
}

void probe_python(const ProbeSettings& settings, Facts& facts) {
    python::Discovery discovery =
        python::discover(settings.python, settings.python_lookup, settings.timeout);
    if (discovery.interpreter) {
        // Absolute: the report is read elsewhere (another directory, another node).
        facts.python = fs::absolute(*discovery.interpreter).lexically_normal().string();
    } else {
        facts.warnings.push_back(
            "no python3 or python in PATH (use --python PATH); Python values are N/A");
    }
    if (discovery.warning) {
        facts.warnings.push_back(*discovery.warning);
    }
    if (discovery.environment) {
        facts.python_version = discovery.environment->version;
        read_packages(*discovery.environment, facts);
    }
}

void probe_system(const ProbeSettings& settings, Facts& facts) {
    std::vector<fs::path> dirs = settings.ld_library_path;
    if (facts.cuda_home) {
        dirs.push_back(fs::path(*facts.cuda_home) / "lib64");
    }
    dirs.insert(dirs.end(), settings.system_library_dirs.begin(),
                settings.system_library_dirs.end());
    if (auto nccl = find_library(dirs, "libnccl.so")) {
        facts.system_nccl = nccl->version;
        facts.system_nccl_library = nccl->path.string();
        if (!facts.system_nccl) {
            // Packages that ship only libnccl.so.2 (the CUDA toolkit's, pip's) ship nccl.h
            // beside it: <prefix>/lib{,64}/libnccl.so.2 and <prefix>/include/nccl.h.
            fs::path header = nccl->path.parent_path().parent_path() / "include" / "nccl.h";
            if (auto text = util::read_file(header, 1024 * 1024)) {
                facts.system_nccl = parse_nccl_header(*text);
            }
        }
    }
    facts.shm_bytes = filesystem_size(settings.shm_path);
    if (facts.aot_extension == false) {
        // torch.utils.cpp_extension's JIT build: `ninja` from PATH, $CXX or `c++`.
        facts.jit_tools_probed = true;
        if (auto ninja = util::find_in_path("ninja", settings.cuda.path_env)) {
            facts.ninja = fs::absolute(*ninja).lexically_normal().string();
        }
        std::string cxx =
            settings.cxx_env && !settings.cxx_env->empty() ? *settings.cxx_env : "c++";
        if (auto compiler = util::find_in_path(cxx, settings.cuda.path_env)) {
            facts.cxx = fs::absolute(*compiler).lexically_normal().string();
        }
    }
}

} // namespace

ProbeSettings read_settings(const Options& options, const GetEnv& getenv) {
    ProbeSettings settings;
    settings.python = options.python;
    settings.cuda.cuda_home_env = getenv("CUDA_HOME");
    settings.cuda.cuda_path_env = getenv("CUDA_PATH");
    settings.cuda.path_env = getenv("PATH").value_or(default_path);
    settings.python_lookup.path_env = settings.cuda.path_env;
    try {
        settings.python_lookup.working_directory = util::current_directory(getenv("PWD"));
    } catch (const Error&) {
        // A removed current directory: no version file is found from it, the check goes on.
    }
    for (std::string_view name : python::shim_variables()) {
        if (auto value = getenv(std::string(name))) {
            settings.python_lookup.variables.emplace(name, *value);
        }
    }
    settings.cuda.default_home = getenv("COLOSSALAI_CUDA_DEFAULT_HOME").value_or("/usr/local/cuda");
    if (auto library = getenv("COLOSSALAI_CUDA_DRIVER_LIBRARY"); library && !library->empty()) {
        settings.driver_library = *library;
    }
    settings.ld_library_path = split_directories(getenv("LD_LIBRARY_PATH").value_or(""));
    settings.system_library_dirs = split_directories(
        getenv("COLOSSALAI_SYSTEM_LIBRARY_DIRS")
            .value_or("/usr/lib/x86_64-linux-gnu:/usr/lib/aarch64-linux-gnu:/usr/lib64:/usr/lib:"
                      "/usr/local/lib"));
    settings.cxx_env = getenv("CXX");
    if (auto timeout = getenv("COLOSSALAI_PROBE_TIMEOUT_MS")) {
        settings.timeout = parse_timeout(*timeout);
    }
    return settings;
}

Facts gather_facts(const ProbeSettings& settings) {
    Facts facts;
    // A bad --python is a usage error: refuse it before anything is started.
    python::resolve_interpreter(settings.python, settings.cuda.path_env);
    // The driver child is forked first, while this process still has a single thread: a fork
    // while another thread starts (or holds the allocator's or the loader's lock) can leave the
    // child, which goes on to dlopen, blocked on a lock nobody will release.
    DriverProbe driver(settings.driver_library);
    // Only now, before the nvcc thread starts, the stop signals are blocked and watched by the
    // probes' waits: a Ctrl-C while nvcc or the interpreter hangs must not leave them behind (the
    // driver child dies with this process: PR_SET_PDEATHSIG). Destroyed after that thread ended.
    exec::StopCapturesOnSignal stop_captures;
    std::optional<fs::path> home = find_cuda_home(settings.cuda, [](const fs::path& path) {
        std::error_code ec;
        return fs::is_directory(path, ec);
    });
    std::future<SystemCuda> cuda = std::async(std::launch::async, [&home, &settings] {
        return probe_system_cuda(home, settings.timeout);
    });

    probe_python(settings, facts);

    SystemCuda system = cuda.get();
    if (system.home) {
        facts.cuda_home = system.home->string();
    }
    facts.system_cuda = system.version;
    if (system.warning) {
        facts.warnings.push_back(*system.warning);
    }

    probe_system(settings, facts);

    DriverFacts driver_facts = driver.finish(settings.timeout);
    facts.driver_cuda = driver_facts.cuda_version;
    facts.gpus = driver_facts.gpus;
    facts.warnings.insert(facts.warnings.end(), driver_facts.warnings.begin(),
                          driver_facts.warnings.end());
    return facts;
}

} // namespace colossalai::check
