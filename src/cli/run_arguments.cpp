#include "run_arguments.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/strings.hpp"

namespace colossalai::cli {

namespace {

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
            if (word.size() < 2 || word[0] != '-') {
                m_result.script = word;
                rest_to_script();
                break;
            }
            if (util::starts_with(word, "--")) {
                long_option(word);
            } else {
                single_dash_option(word);
            }
        }
        return std::move(m_result);
    }

private:
    // `-host VALUE`, `-host=VALUE`, `-H VALUE`, `-HVALUE`, `-h`: the single-dash spellings of
    // the table; a short option that takes a value may have it attached.
    void single_dash_option(const std::string& word) {
        for (const RunOption& option : run_option_table()) {
            const std::string_view alias = option.single_dash_alias;
            if (alias.empty()) {
                continue;
            }
            if (word == alias) {
                given(option, value_of(option, word));
                return;
            }
            if (word.size() > alias.size() && util::starts_with(word, alias) &&
                word[alias.size()] == '=') {
                given(option, word.substr(alias.size() + 1));
                return;
            }
        }
        for (const RunOption& option : run_option_table()) {
            const std::string_view name = option.short_name;
            if (name.empty()) {
                continue;
            }
            if (word == name) {
                given(option, option.takes_value() ? value_of(option, word) : std::string());
                return;
            }
            if (option.takes_value() && util::starts_with(word, name)) {
                given(option, word.substr(name.size()));
                return;
            }
        }
        std::string name = word.substr(0, word.find('='));
        std::string hint;
        if (find_long_option("-" + name) != nullptr) {
            hint = " (did you mean '-" + name + "'?)";
        }
        throw usage_error("unknown option '{}'{}", util::escape_for_message(word), hint);
    }

    void long_option(const std::string& word) {
        size_t equals = word.find('=');
        std::string name = word.substr(0, equals);
        const RunOption* option = find_long_option(name);
        if (option == nullptr) {
            throw usage_error("unknown option '{}' (options for the script go after the script)",
                              util::escape_for_message(name));
        }
        if (!option->takes_value()) {
            if (equals != std::string::npos) {
                throw usage_error("option '{}' takes no value", option->display_name());
            }
            given(*option, "");
            return;
        }
        given(*option,
              equals != std::string::npos ? word.substr(equals + 1) : value_of(*option, name));
    }

    void given(const RunOption& option, std::string value) {
        switch (option.role) {
        case OptionRole::help:
            m_result.help = true;
            break;
        case OptionRole::module:
            m_result.module = std::move(value);
            rest_to_script();
            break;
        case OptionRole::option:
            m_result.options.push_back({&option, std::move(value)});
            break;
        }
    }

    // The next word, whatever it looks like, as the value of `option` (spelled `word`).
    std::string value_of(const RunOption& option, const std::string& word) {
        if (m_next >= m_words.size()) {
            if (option.role == OptionRole::module) {
                throw usage_error("{} needs a module name", word);
            }
            throw usage_error("option '{}' needs a value", util::escape_for_message(word));
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
