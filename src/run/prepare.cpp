// The I/O edge of planning: everything make_plan needs, read from this machine.

#include "colossalai/python/cache.hpp"
#include "colossalai/python/package_info.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

extern char** environ;

namespace colossalai::run {

namespace {

bool same_file(const char* a, const char* b) {
    struct stat first {};
    struct stat second {};
    return ::stat(a, &first) == 0 && ::stat(b, &second) == 0 && first.st_dev == second.st_dev &&
           first.st_ino == second.st_ino;
}

// The current directory as the user sees it: $PWD when it is absolute and names the current
// directory (it keeps symbolic links, which other machines often share: /home -> /nfs/home),
// else the physical path.
std::string working_directory() {
    const char* pwd = std::getenv("PWD");
    if (pwd != nullptr && pwd[0] == '/' && same_file(pwd, ".")) {
        return pwd;
    }
    std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
    if (!cwd) {
        throw runtime_error("cannot read the current directory: {}", std::strerror(errno));
    }
    return cwd.get();
}

std::map<std::string, std::string> environment_map() {
    std::map<std::string, std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        std::string_view text(*entry);
        size_t equals = text.find('=');
        if (equals != std::string_view::npos) {
            variables.emplace(text.substr(0, equals), text.substr(equals + 1));
        }
    }
    return variables;
}

void find_python(Context& context) {
    const char* path = std::getenv("PATH");
    // The launcher runs often: the search path is cached (and checked) instead of asking the
    // interpreter every time; see python/cache.hpp.
    std::map<std::string, std::string> variables = environment_map();
    python::Discovery discovery = python::discover_cached(path != nullptr ? path : "", variables,
                                                          python::default_cache_dir(variables));
    if (discovery.warning) {
        context.warnings.push_back(*discovery.warning + "; assuming PyTorch >= 2.0 (torchrun)");
    }
    if (!discovery.environment) {
        return;
    }
    const python::Environment& environment = *discovery.environment;
    context.python =
        environment.executable.empty() ? environment.interpreter.string() : environment.executable;
    if (std::optional<std::filesystem::path> torch = python::find_package(environment, "torch")) {
        context.torch_version = python::read_torch_info(*torch).version;
    }
}

} // namespace

// A hostfile is a short text; anything bigger is a mistake (a binary, /dev/zero).
constexpr std::size_t max_hostfile_bytes = 1024 * 1024;

std::string read_hostfile(const std::string& path) {
    std::string error;
    std::optional<std::string> text = util::read_file(path, max_hostfile_bytes, &error);
    if (!text) {
        std::string shown = util::escape_for_message(path);
        if (error == "file too large") {
            throw usage_error("--hostfile '{}': larger than 1 MiB, not a hostfile", shown);
        }
        throw usage_error("--hostfile '{}': {}", shown, error);
    }
    return *text;
}

Plan prepare(const Options& options) {
    validate_options(options);
    Context context;
    if (options.hostfile) {
        context.hostfile_text = read_hostfile(*options.hostfile);
    }
    for (char** entry = environ; *entry != nullptr; ++entry) {
        context.environment.emplace_back(*entry);
    }
    context.working_directory = working_directory();
    find_python(context);
    auto detector = std::make_shared<LocalHostDetector>();
    context.is_local = [detector](std::string_view address) { return (*detector)(address); };
    return make_plan(options, context);
}

} // namespace colossalai::run
