#include "run_arguments.hpp"

#include "colossalai/run/extra_args.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <string_view>

namespace colossalai::cli {

namespace {

struct LauncherOption {
    std::string_view name;
    bool takes_value;
};

// Every long option of `colossalai run`, spelled as in --help.
constexpr LauncherOption launcher_options[] = {
    {"--host", true},
    {"--hostfile", true},
    {"--include", true},
    {"--exclude", true},
    {"--num_nodes", true},
    {"--nproc_per_node", true},
    {"--master_port", true},
    {"--master_addr", true},
    {"--extra_launch_args", true},
    {"--ssh-port", true},
    {"--ssh-timeout", true},
    {"--kill-grace", true},
    {"--strict-host-key-checking", true},
    {"--launcher", true},
    {"--srun-args", true},
    {"--network-interface", true},
    {"--python", true},
    {"--env-file", true},
    {"--env-exclude", true},
    {"--log-dir", true},
    {"--dry-run", false},
    {"--help", false},
};

// The option named `--name` (with '-' and '_' alike, as torchrun allows), if any.
const LauncherOption* find_option(std::string_view name) {
    auto it = std::find_if(std::begin(launcher_options), std::end(launcher_options),
                           [&](const LauncherOption& option) {
                               return run::same_option(name.substr(2), option.name.substr(2));
                           });
    return it == std::end(launcher_options) ? nullptr : &*it;
}

class Scanner {
public:
    explicit Scanner(const std::vector<std::string>& words) : m_words(words) {}

    RunWords scan() {
        while (m_next < m_words.size()) {
            const std::string& word = m_words[m_next++];
            if (word == "--") {
                if (m_next < m_words.size()) {
                    m_result.script = m_words[m_next++];
                    rest_to_script();
                }
                break;
            }
            if (word == "-m") {
                m_result.module = value_of("-m");
                rest_to_script();
                break;
            }
            if (util::starts_with(word, "-m")) {
                m_result.module = word.substr(2);
                rest_to_script();
                break;
            }
            if (word.size() < 2 || word[0] != '-') {
                m_result.script = word;
                rest_to_script();
                break;
            }
            launcher_option(word);
        }
        return std::move(m_result);
    }

private:
    void launcher_option(const std::string& word) {
        if (word == "-h") {
            m_result.help = true;
        } else if (word == "-H" || word == "-host") {
            m_result.values.emplace_back("--host", value_of(word));
        } else if (util::starts_with(word, "-host=")) {
            m_result.values.emplace_back("--host", word.substr(6));
        } else if (util::starts_with(word, "-H")) {
            m_result.values.emplace_back("--host", word.substr(2));
        } else if (word == "-x") {
            m_result.values.emplace_back("-x", value_of(word));
        } else if (util::starts_with(word, "-x")) {
            m_result.values.emplace_back("-x", word.substr(2));
        } else if (util::starts_with(word, "--")) {
            long_option(word);
        } else {
            std::string name = word.substr(0, word.find('='));
            std::string hint;
            if (find_option("-" + name) != nullptr) {
                hint = " (did you mean '-" + name + "'?)";
            }
            throw usage_error("unknown option '{}'{}", util::escape_for_message(word), hint);
        }
    }

    void long_option(const std::string& word) {
        size_t equals = word.find('=');
        std::string name = word.substr(0, equals);
        const LauncherOption* option = find_option(name);
        if (option == nullptr) {
            throw usage_error("unknown option '{}' (options for the script go after the script)",
                              util::escape_for_message(name));
        }
        std::string canonical(option->name);
        if (!option->takes_value) {
            if (equals != std::string::npos) {
                throw usage_error("option '{}' takes no value", canonical);
            }
            (canonical == "--help" ? m_result.help : m_result.dry_run) = true;
            return;
        }
        std::string value = equals != std::string::npos ? word.substr(equals + 1) : value_of(name);
        m_result.values.emplace_back(canonical, std::move(value));
    }

    // The next word, whatever it looks like, as the value of `option`.
    std::string value_of(const std::string& option) {
        if (m_next >= m_words.size()) {
            if (option == "-m") {
                throw usage_error("-m needs a module name");
            }
            throw usage_error("option '{}' needs a value", util::escape_for_message(option));
        }
        return m_words[m_next++];
    }

    void rest_to_script() {
        m_result.script_args.assign(m_words.begin() + static_cast<std::ptrdiff_t>(m_next),
                                    m_words.end());
        m_next = m_words.size();
    }

    const std::vector<std::string>& m_words;
    size_t m_next = 0;
    RunWords m_result;
};

} // namespace

RunWords split_run_arguments(const std::vector<std::string>& words) {
    return Scanner(words).scan();
}

} // namespace colossalai::cli
