// The I/O edge of planning: everything make_plan needs, read from this machine.

#include "colossalai/python/cache.hpp"
#include "colossalai/python/package_info.hpp"
#include "colossalai/run/environment.hpp"
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
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>

extern char** environ;

namespace colossalai::run {

namespace {

// The launcher's environment as prepare() read it (Context::environment), as a map; the first of
// a name given twice wins, as getenv's.
std::map<std::string, std::string> environment_map(const std::vector<std::string>& entries) {
    std::map<std::string, std::string> variables;
    for (const std::string& entry : entries) {
        std::string_view text(entry);
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
    python::Lookup lookup{find_variable(context.environment, "PATH").value_or(""),
                          context.working_directory, environment_map(context.environment)};
    python::Discovery discovery = python::discover(interpreter, lookup);
    if (discovery.environment) {
        if (std::optional<std::filesystem::path> torch =
                python::find_package(*discovery.environment, "torch")) {
            context.torch_version = python::read_torch_info(*torch).version;
            context.python_version = discovery.environment->version;
        }
    }
}

void find_python(Context& context) {
    // The launcher runs often: the search path is cached (and checked) instead of asking the
    // interpreter every time, and a pyenv or asdf shim is resolved instead of run; see
    // python/cache.hpp and python/shim.hpp.
    python::Lookup lookup{find_variable(context.environment, "PATH").value_or(""),
                          context.working_directory, environment_map(context.environment)};
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
        context.python_version = environment.version;
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

namespace {

// An env file is a short text, like a hostfile.
constexpr std::size_t max_env_file_bytes = 1024 * 1024;

EnvFileText read_env_file(const std::string& path, std::string_view what) {
    int error = 0;
    std::optional<std::string> text = util::read_file(path, max_env_file_bytes, &error);
    if (!text) {
        throw usage_error("{} '{}': {}", what, util::escape_for_message(path),
                          error == EFBIG ? "larger than 1 MiB" : std::strerror(error));
    }
    return {path, std::move(*text)};
}

// --env-file FILE..., else the first of ./.colossalai_env and ~/.colossalai_env that exists
// (a notice says it was read).
void read_env_files(const Options& options, Context& context) {
    for (const std::string& path : options.env_files) {
        context.env_files.push_back(read_env_file(path, "--env-file"));
    }
    if (!options.env_files.empty()) {
        return;
    }
    std::vector<std::filesystem::path> candidates{std::filesystem::path(context.working_directory) /
                                                  ".colossalai_env"};
    if (std::string home = find_variable(context.environment, "HOME").value_or(""); !home.empty()) {
        candidates.push_back(std::filesystem::path(home) / ".colossalai_env");
    }
    for (const std::filesystem::path& candidate : candidates) {
        std::error_code error;
        if (std::filesystem::is_regular_file(candidate, error)) {
            context.env_files.push_back(read_env_file(candidate.string(), "the env file"));
            return;
        }
    }
}

// --log-dir made absolute, and refused unless it is a directory the launcher can write in, or
// missing (then created by create_log_dir once the plan stands).
std::string check_log_dir(const std::string& dir, const std::string& working_directory) {
    if (dir.empty()) {
        throw usage_error("--log-dir needs a directory");
    }
    std::filesystem::path path =
        (std::filesystem::path(working_directory) / dir).lexically_normal();
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
        return path.string();
    }
    std::string shown = util::escape_for_message(dir);
    if (!std::filesystem::is_directory(path, error)) {
        throw usage_error("--log-dir '{}': not a directory", shown);
    }
    if (::access(path.c_str(), W_OK | X_OK) != 0) {
        throw usage_error("--log-dir '{}': {}", shown, std::strerror(errno));
    }
    return path.string();
}

void create_log_dir(const std::string& dir, const std::string& path) {
    std::error_code error;
    if (!std::filesystem::create_directories(path, error) && error) {
        throw usage_error("--log-dir '{}': {}", util::escape_for_message(dir), error.message());
    }
}

} // namespace

Plan prepare(const Options& options, const EngineRow& engine,
             std::function<std::string(const std::string&)> host_name) {
    Context context;
    if (options.hostfile) {
        context.hostfile_text = read_hostfile(*options.hostfile);
    }
    // The one snapshot of the launcher's environment: everything below, the plan and the
    // launch read it, never environ again.
    for (char** entry = environ; *entry != nullptr; ++entry) {
        context.environment.emplace_back(*entry);
    }
    if (!options.host && !options.hostfile) {
        std::optional<SchedulerVariable> variable = find_scheduler_variable(context.environment);
        if (variable && names_node_file(*variable) && !variable->value.empty()) {
            context.nodefile_text = read_hostfile(variable->value, variable->name);
        }
        std::string kubeflow = kubeflow_hostfile_path(context.environment);
        std::error_code error;
        if (!variable && !kubeflow.empty() && std::filesystem::is_regular_file(kubeflow, error)) {
            context.kubeflow_hostfile = std::pair{kubeflow, read_hostfile(kubeflow)};
        }
    }
    context.working_directory =
        util::current_directory(find_variable(context.environment, "PWD")).string();
    read_env_files(options, context);
    if (options.log_dir) {
        context.log_dir = check_log_dir(*options.log_dir, context.working_directory);
    }
    if (options.python) {
        find_given_python(*options.python, context);
    } else {
        find_python(context);
    }
    auto detector = std::make_shared<LocalHostDetector>();
    context.host_name = std::move(host_name);
    context.find_local = [detector](const std::vector<std::string>& addresses) {
        return (*detector)(addresses);
    };
    context.source_towards = [detector](const std::string& address) {
        return detector->source_towards(address);
    };
    Plan plan = make_plan(options, context, engine);
    // Only once everything else is known to be right; a dry run creates nothing.
    if (plan.log_dir && !options.dry_run) {
        create_log_dir(*options.log_dir, *plan.log_dir);
    }
    return plan;
}

} // namespace colossalai::run
