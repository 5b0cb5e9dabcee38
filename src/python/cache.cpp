#include "colossalai/python/cache.hpp"

#include "colossalai/util/fd.hpp"
#include "colossalai/util/file.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <system_error>

namespace colossalai::python {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The variables that change what sys.path holds.
constexpr const char* relevant_variables[] = {
    "PYTHONPATH",     "PYTHONHOME",       "PYTHONUSERBASE", "PYTHONNOUSERSITE",
    "PYTHONSAFEPATH", "PYTHONPLATLIBDIR", "VIRTUAL_ENV",    "HOME"};

// Only a real interpreter binary can be cached: a wrapper script (such as a version manager's
// shim that resolve_shim() could not resolve) picks its interpreter from files whose changes no
// cheap check would see.
bool is_binary(const fs::path& interpreter) {
    util::Fd fd(::open(interpreter.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) {
        return false;
    }
    char magic[4] = {};
    return ::read(fd.get(), magic, sizeof magic) == sizeof magic && magic[0] == 0x7f &&
           magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

// A file's identity and age: changes when the file is replaced or modified. "-" if missing.
std::string stamp(const fs::path& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return "-";
    }
    return fmt::format("{}:{}:{}.{}:{}", info.st_dev, info.st_ino, info.st_mtim.tv_sec,
                       info.st_mtim.tv_nsec, info.st_size);
}

// The user site directory Python would add if it existed.
fs::path user_site(const Environment& environment, const std::map<std::string, std::string>& env) {
    auto base = env.find("PYTHONUSERBASE");
    fs::path root;
    if (base != env.end() && !base->second.empty()) {
        root = base->second;
    } else if (auto home = env.find("HOME"); home != env.end()) {
        root = fs::path(home->second) / ".local";
    }
    std::string major_minor = environment.version.substr(0, environment.version.rfind('.'));
    return root / "lib" / ("python" + major_minor) / "site-packages";
}

json stamps_of(const Environment& environment, const std::map<std::string, std::string>& env) {
    json stamps = json::object();
    stamps[environment.interpreter.string()] = stamp(environment.interpreter);
    for (const fs::path& dir : environment.search_path) {
        stamps[dir.string()] = stamp(dir);
    }
    fs::path site = user_site(environment, env);
    stamps[site.string()] = stamp(site);
    return stamps;
}

bool stamps_hold(const json& stamps) {
    for (const auto& [path, value] : stamps.items()) {
        if (!value.is_string() || stamp(path) != value.get<std::string>()) {
            return false;
        }
    }
    return true;
}

std::optional<Environment> load(const fs::path& file, const fs::path& interpreter) {
    auto text = util::read_file(file, 1024 * 1024);
    if (!text) {
        return std::nullopt;
    }
    json entry = json::parse(*text, nullptr, false);
    if (!entry.is_object() || entry.value("interpreter", "") != interpreter.string() ||
        !entry.contains("stamps") || !stamps_hold(entry["stamps"]) ||
        !entry["search_path"].is_array()) {
        return std::nullopt;
    }
    Environment environment;
    environment.interpreter = interpreter;
    environment.version = entry.value("version", "");
    environment.executable = entry.value("executable", "");
    for (const json& dir : entry["search_path"]) {
        if (dir.is_string()) {
            environment.search_path.emplace_back(dir.get<std::string>());
        }
    }
    return environment;
}

void store(const fs::path& file, const Environment& environment,
           const std::map<std::string, std::string>& env) {
    json entry;
    entry["interpreter"] = environment.interpreter.string();
    entry["version"] = environment.version;
    entry["executable"] = environment.executable;
    entry["search_path"] = json::array();
    for (const fs::path& dir : environment.search_path) {
        entry["search_path"].push_back(dir.string());
    }
    entry["stamps"] = stamps_of(environment, env);
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    fs::path temporary = file;
    temporary += fmt::format(".{}.tmp", ::getpid());
    {
        FILE* out = std::fopen(temporary.c_str(), "w");
        if (out == nullptr) {
            return;
        }
        std::string text = entry.dump(-1, ' ', false, json::error_handler_t::replace);
        bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
        ok = std::fclose(out) == 0 && ok;
        if (!ok) {
            fs::remove(temporary, ec);
            return;
        }
    }
    fs::rename(temporary, file, ec); // atomic: readers see the old entry or the new one
    if (ec) {
        fs::remove(temporary, ec);
    }
}

} // namespace

std::optional<fs::path> default_cache_dir(const std::map<std::string, std::string>& env) {
    auto xdg = env.find("XDG_CACHE_HOME");
    if (xdg != env.end() && !xdg->second.empty() && xdg->second.front() == '/') {
        return fs::path(xdg->second) / "colossalai" / "python";
    }
    auto home = env.find("HOME");
    if (home != env.end() && !home->second.empty()) {
        return fs::path(home->second) / ".cache" / "colossalai" / "python";
    }
    return std::nullopt;
}

Discovery discover_cached(const Lookup& lookup, const std::optional<fs::path>& cache_dir,
                          std::chrono::milliseconds timeout) {
    const std::map<std::string, std::string>& env = lookup.variables;
    std::optional<Located> located = locate_interpreter(std::nullopt, lookup);
    if (!located || !cache_dir || !is_binary(located->interpreter)) {
        return discover(std::nullopt, lookup, timeout);
    }
    const fs::path& interpreter = located->interpreter;
    // One entry per interpreter, shim selection and set of relevant variables.
    std::string key = interpreter.string();
    key += "\nselection=" + located->selection;
    for (const char* name : relevant_variables) {
        auto found = env.find(name);
        key += fmt::format("\n{}={}", name, found == env.end() ? "<unset>" : found->second);
    }
    fs::path file = *cache_dir / fmt::format("{:016x}.json", std::hash<std::string>{}(key));
    if (auto environment = load(file, interpreter)) {
        Discovery discovery;
        discovery.interpreter = interpreter;
        discovery.environment = std::move(environment);
        return discovery;
    }
    Discovery discovery = discover(interpreter.string(), lookup, timeout);
    if (discovery.environment) {
        store(file, *discovery.environment, env);
    }
    return discovery;
}

} // namespace colossalai::python
