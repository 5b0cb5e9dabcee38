#include "config_language.hpp"

#include "colossalai/util/error.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace colossalai::ssh {

namespace {

// A line's words: whitespace-separated, "double quotes" group; the keyword may end in '='.
std::vector<std::string> words_of(std::string_view line) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) {
            ++i;
        }
        if (i >= line.size() || line[i] == '#') {
            break;
        }
        if (words.size() == 1 && line[i] == '=') { // `Keyword = value`
            ++i;
            continue;
        }
        std::string word;
        bool quoted = false;
        while (i < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[i])))) {
            if (line[i] == '"') {
                quoted = !quoted;
            } else if (words.empty() && line[i] == '=') {
                break; // `Keyword=value`
            } else {
                word += line[i];
            }
            ++i;
        }
        if (words.empty() && i < line.size() && line[i] == '=') {
            ++i;
        }
        words.push_back(std::move(word));
    }
    return words;
}

// OpenSSH's pattern list: any pattern matches and no negated (`!pattern`) one does.
bool match_list(const std::string& text, const std::vector<std::string>& patterns) {
    bool matched = false;
    for (const std::string& pattern : patterns) {
        if (!pattern.empty() && pattern[0] == '!') {
            if (match_pattern(text, std::string_view(pattern).substr(1))) {
                return false;
            }
        } else if (match_pattern(text, pattern)) {
            matched = true;
        }
    }
    return matched;
}

// As OpenSSH's READCONF_MAX_DEPTH: a file that includes itself ends here, not in a crash.
constexpr int max_include_depth = 16;

class Parser {
public:
    Parser(const std::string& source, const ConfigTarget& target, const IncludeReader& include,
           ClientConfig& config, int depth = 0)
        : m_source(source), m_target(target), m_original(util::ascii_lower(target.original)),
          m_include(include), m_config(config), m_depth(depth) {}

    void parse(const std::vector<ConfigLine>& lines, bool active) {
        m_active = active;
        for (const ConfigLine& line : lines) {
            m_line = line.number;
            apply(line.keyword, line.args);
        }
    }

private:
    template <typename... Args>
    [[noreturn]] void bad(fmt::format_string<Args...> format, Args&&... args) const {
        throw fatal_error("{} line {}: {}", m_source, m_line,
                          fmt::format(format, std::forward<Args>(args)...));
    }

    void apply(const std::string& keyword, const std::vector<std::string>& args) {
        if (keyword == "host") {
            m_active = match_list(m_original, args); // both lower case
            return;
        }
        if (keyword == "match") {
            m_active = match(args);
            return;
        }
        if (!m_active) {
            return;
        }
        if (keyword == "include") {
            if (m_depth >= max_include_depth) {
                bad("Include nested more than {} deep (a file that includes itself?)",
                    max_include_depth);
            }
            for (const std::string& argument : args) {
                for (const std::string& text : m_include(argument)) {
                    Parser nested(m_source + " (Include " + argument + ")", m_target, m_include,
                                  m_config, m_depth + 1);
                    nested.parse(tokenize(text), true);
                }
            }
        } else if (keyword == "hostname") {
            set(m_config.host_name, value(keyword, args));
        } else if (keyword == "stricthostkeychecking") {
            std::optional<HostKeyPolicy> policy = parse_host_key_policy(value(keyword, args));
            if (!policy) {
                bad("StrictHostKeyChecking '{}': use yes, accept-new, no or ask", args[0]);
            }
            set(m_config.strict_host_key_checking, *policy);
        } else if (keyword == "hashknownhosts") {
            set(m_config.hash_known_hosts, yes_no(keyword, value(keyword, args)));
        } else if (keyword == "serveraliveinterval") {
            set(m_config.server_alive_interval, number(keyword, value(keyword, args)));
        } else if (keyword == "serveralivecountmax") {
            set(m_config.server_alive_count_max, number(keyword, value(keyword, args)));
        } else if (keyword == "identityfile") {
            m_config.identity_files.push_back(value(keyword, args));
        } else if (keyword == "certificatefile") {
            m_config.certificate_files.push_back(value(keyword, args));
        }
    }

    static std::vector<std::string> lowered(const std::vector<std::string>& words) {
        std::vector<std::string> result;
        for (const std::string& word : words) {
            result.push_back(util::ascii_lower(word));
        }
        return result;
    }

    bool match(const std::vector<std::string>& args) const {
        bool result = true;
        for (std::size_t i = 0; i < args.size(); ++i) {
            std::string criterion = util::ascii_lower(args[i]);
            bool negate = !criterion.empty() && criterion[0] == '!';
            if (negate) {
                criterion.erase(0, 1);
            }
            bool matched = false;
            if (criterion == "all" || criterion == "final") {
                matched = true;
            } else if (criterion == "canonical") {
                matched = false;
            } else if (criterion == "host" || criterion == "originalhost") {
                if (++i >= args.size()) {
                    bad("Match {} needs a pattern list", criterion);
                }
                const std::string& name = criterion == "host" ? m_target.host : m_target.original;
                matched = match_list(util::ascii_lower(name), lowered(util::split(args[i], ',')));
            } else {
                return false; // user, localuser, exec, ...: not understood here
            }
            result = result && (matched != negate);
        }
        return result;
    }

    const std::string& value(const std::string& keyword, const std::vector<std::string>& args) {
        if (args.empty()) {
            bad("{} needs a value", keyword);
        }
        return args[0];
    }

    bool yes_no(const std::string& keyword, const std::string& text) const {
        std::string word = util::ascii_lower(text);
        if (word == "yes" || word == "true") {
            return true;
        }
        if (word == "no" || word == "false") {
            return false;
        }
        bad("{} '{}': use yes or no", keyword, text);
    }

    int number(const std::string& keyword, const std::string& text) const {
        std::optional<int> result = util::parse_integer<int>(text, {.min = 0});
        if (!result) {
            bad("{} '{}': not a number", keyword, text);
        }
        return *result;
    }

    template <typename T>
    static void set(std::optional<T>& slot, T value) {
        if (!slot) {
            slot = value;
        }
    }

    std::string m_source; // owned: an Include makes a new name for the nested parser
    const ConfigTarget& m_target;
    std::string m_original; // m_target.original in lower case, for every Host line
    const IncludeReader& m_include;
    ClientConfig& m_config;
    int m_depth;
    bool m_active = true;
    int m_line = 0;
};

} // namespace

std::vector<ConfigLine> tokenize(std::string_view text) {
    std::vector<ConfigLine> lines;
    int number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++number;
        std::vector<std::string> words = words_of(line);
        if (words.empty()) {
            continue;
        }
        ConfigLine parsed{number, util::ascii_lower(words[0]), {words.begin() + 1, words.end()}};
        if (parsed.keyword == "host") {
            for (std::string& pattern : parsed.args) {
                pattern = util::ascii_lower(pattern);
            }
        }
        lines.push_back(std::move(parsed));
    }
    return lines;
}

void apply_config_lines(const std::vector<ConfigLine>& lines, const std::string& source,
                        const ConfigTarget& target, const IncludeReader& include,
                        ClientConfig& config) {
    Parser(source, target, include, config).parse(lines, true);
}

bool match_pattern(std::string_view text, std::string_view pattern) {
    // Iterative wildcard match with one backtrack point for the last `*`.
    std::size_t t = 0, p = 0, star = std::string_view::npos, resume = 0;
    auto same = [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    };
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || same(pattern[p], text[t]))) {
            ++t;
            ++p;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') {
        ++p;
    }
    return p == pattern.size();
}

void apply_client_config(std::string_view text, const std::string& source,
                         const ConfigTarget& target, const IncludeReader& include,
                         ClientConfig& config) {
    apply_config_lines(tokenize(text), source, target, include, config);
}

} // namespace colossalai::ssh
