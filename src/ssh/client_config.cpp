#include "colossalai/ssh/client_config.hpp"

#include "config_language.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

namespace colossalai::ssh {

namespace {

// Include's argument: `~/` is the home, a relative path lies in `base`; globs expanded.
IncludeReader include_reader(const std::filesystem::path& base, const std::filesystem::path& home) {
    return [base, home](const std::string& argument) {
        std::filesystem::path path = argument;
        if (util::starts_with(argument, "~/")) {
            path = home / argument.substr(2);
        } else if (path.is_relative()) {
            path = base / path;
        }
        std::vector<std::string> texts;
        glob_t matches{};
        if (::glob(path.c_str(), 0, nullptr, &matches) == 0) {
            for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
                if (std::optional<std::string> text = util::read_file(matches.gl_pathv[i])) {
                    texts.push_back(std::move(*text));
                }
            }
        }
        ::globfree(&matches);
        return texts;
    };
}

// `read` remembering what each Include argument gave: ConfiguredHostNames applies the files
// once per host, and a glob with its directory read per host would cost more than the rest of
// planning 100,000 hosts. Thread-safe, as ConfiguredHostNames must be.
IncludeReader remembered(IncludeReader read) {
    struct Memory {
        std::mutex mutex;
        std::map<std::string, std::vector<std::string>, std::less<>> texts; // argument -> texts
    };
    return
        [read = std::move(read), memory = std::make_shared<Memory>()](const std::string& argument) {
            std::lock_guard lock(memory->mutex);
            auto it = memory->texts.find(argument);
            if (it == memory->texts.end()) {
                it = memory->texts.emplace(argument, read(argument)).first;
            }
            return it->second;
        };
}

} // namespace

LocalUser local_user() {
    // getpwuid_r: connections are set up on several threads at once.
    LocalUser user;
    std::vector<char> buffer(16384);
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
        found != nullptr) {
        user.name = found->pw_name != nullptr ? found->pw_name : "";
        user.home = found->pw_dir != nullptr ? found->pw_dir : "";
    }
    if (user.home.empty()) {
        const char* home = std::getenv("HOME");
        user.home = home != nullptr ? home : "/";
    }
    return user;
}

std::string expand_path(std::string_view path, const PathTokens& tokens) {
    std::string result;
    std::size_t i = 0;
    if (path == "~" || util::starts_with(path, "~/")) {
        result = tokens.home;
        i = 1;
    }
    for (; i < path.size(); ++i) {
        if (path[i] != '%' || i + 1 == path.size()) {
            result += path[i];
            continue;
        }
        switch (path[++i]) {
        case 'd':
            result += tokens.home;
            break;
        case 'u':
            result += tokens.local_user;
            break;
        case 'h':
            result += tokens.host;
            break;
        case 'r':
            result += tokens.remote_user;
            break;
        case '%':
            result += '%';
            break;
        default:
            result += '%';
            result += path[i];
        }
    }
    return result;
}

std::string host_name_of(const std::string& original, const ClientConfig& config) {
    if (!config.host_name) {
        return original;
    }
    // OpenSSH expands only %h and %% in HostName.
    std::string result;
    const std::string& text = *config.host_name;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 1 < text.size() && (text[i + 1] == 'h' || text[i + 1] == '%')) {
            result += text[++i] == 'h' ? original : "%";
        } else {
            result += text[i];
        }
    }
    return result;
}

// The client configuration files, each read and split once.
struct ConfigFiles {
    struct File {
        std::string source;
        std::vector<ConfigLine> lines;
        IncludeReader include;
    };
    std::vector<File> files;

    ConfigFiles() {
        std::filesystem::path home = local_user().home;
        const std::pair<std::filesystem::path, std::filesystem::path> paths[] = {
            {home / ".ssh/config", home / ".ssh"},
            {"/etc/ssh/ssh_config", "/etc/ssh"},
        };
        for (const auto& [file, base] : paths) {
            if (std::optional<std::string> text = util::read_file(file)) {
                files.push_back(
                    {file.string(), tokenize(*text), remembered(include_reader(base, home))});
            }
        }
    }

    ClientConfig apply(const ConfigTarget& target) const {
        ClientConfig config;
        for (const File& file : files) {
            apply_config_lines(file.lines, file.source, target, file.include, config);
        }
        return config;
    }
};

ClientConfig read_client_config(const ConfigTarget& target) {
    return ConfigFiles().apply(target);
}

// Read at the first lookup: a run without remote nodes never reads the files (nor asks the
// password database for the home directory).
struct ConfiguredHostNames::Files {
    std::once_flag read;
    std::optional<ConfigFiles> files;

    const ConfigFiles& get() {
        std::call_once(read, [this] { files.emplace(); });
        return *files;
    }
};

ConfiguredHostNames::ConfiguredHostNames() : m_files(std::make_shared<Files>()) {}

std::string ConfiguredHostNames::operator()(const std::string& original) const {
    try {
        return host_name_of(original, m_files->get().apply({original, original}));
    } catch (const Error&) {
        // A bad value elsewhere in the config must not stop a local run; a connection to this
        // host reads the config again and reports it.
        return original;
    }
}

} // namespace colossalai::ssh
