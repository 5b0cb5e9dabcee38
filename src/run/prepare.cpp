// The I/O edge of planning: everything make_plan needs, read from this machine.

#include "colossalai/python/cache.hpp"
#include "colossalai/python/package_info.hpp"
#include "colossalai/run/hosts.hpp"
#include "colossalai/run/local_host.hpp"
#include "colossalai/run/planner.hpp"
#include "colossalai/run/scheduler_hosts.hpp"
#include "colossalai/run/validate.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

extern char** environ;

namespace colossalai::run {

namespace {

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

// --python PATH names the nodes' interpreter. Where it also exists here (a shared file system,
// the same image), its PyTorch chooses the command form; elsewhere a current PyTorch is assumed.
void find_given_python(const std::string& interpreter, Context& context) {
    if (interpreter.find('/') == std::string::npos || ::access(interpreter.c_str(), X_OK) != 0) {
        return;
    }
    const char* path = std::getenv("PATH");
    python::Lookup lookup{path != nullptr ? path : "", context.working_directory,
                          environment_map()};
    python::Discovery discovery = python::discover(interpreter, lookup);
    if (discovery.environment) {
        if (std::optional<std::filesystem::path> torch =
                python::find_package(*discovery.environment, "torch")) {
            context.torch_version = python::read_torch_info(*torch).version;
        }
    }
}

void find_python(Context& context) {
    const char* path = std::getenv("PATH");
    // The launcher runs often: the search path is cached (and checked) instead of asking the
    // interpreter every time, and a pyenv or asdf shim is resolved instead of run; see
    // python/cache.hpp and python/shim.hpp.
    python::Lookup lookup{path != nullptr ? path : "", context.working_directory,
                          environment_map()};
    python::Discovery discovery =
        python::discover_cached(lookup, python::default_cache_dir(lookup.variables));
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

std::string read_hostfile(const std::string& path, std::string_view what) {
    int error = 0;
    std::optional<std::string> text = util::read_file(path, max_hostfile_bytes, &error);
    if (!text) {
        std::string shown = util::escape_for_message(path);
        if (error == EFBIG) {
            throw usage_error("{} '{}': larger than 1 MiB, not a hostfile", what, shown);
        }
        throw usage_error("{} '{}': {}", what, shown, std::strerror(error));
    }
    return *text;
}

Plan prepare(const Options& options) {
    Context context;
    if (options.hostfile) {
        context.hostfile_text = read_hostfile(*options.hostfile);
    }
    for (char** entry = environ; *entry != nullptr; ++entry) {
        context.environment.emplace_back(*entry);
    }
    if (!options.host && !options.hostfile) {
        std::optional<SchedulerVariable> variable = find_scheduler_variable(context.environment);
        if (variable && variable->kind == SchedulerKind::pbs && !variable->value.empty()) {
            context.nodefile_text = read_hostfile(variable->value, variable->name);
        }
    }
    const char* pwd = std::getenv("PWD");
    context.working_directory =
        util::current_directory(pwd != nullptr ? std::optional<std::string>(pwd) : std::nullopt)
            .string();
    if (options.python) {
        find_given_python(*options.python, context);
    } else {
        find_python(context);
    }
    auto detector = std::make_shared<LocalHostDetector>();
    context.is_local = [detector](std::string_view address) { return (*detector)(address); };
    return make_plan(options, context);
}

} // namespace colossalai::run
