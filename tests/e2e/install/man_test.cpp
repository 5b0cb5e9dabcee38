#include "support.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

// The generated man pages (build/share/man/man1) against the program's --help: the same
// options, both ways.
namespace colossalai::test {
namespace {

const std::filesystem::path man_dir = std::filesystem::path(COLOSSALAI_GENERATED_DIR) / "man/man1";

// The options --help lists: the words starting with '-' at the start of its indented lines.
std::set<std::string> help_options(const std::string& help) {
    std::set<std::string> options;
    static const std::regex line(R"(^\s+(-[^ ]*(?:, ?-[^ ]*)*))");
    std::istringstream in(help);
    for (std::string text; std::getline(in, text);) {
        std::smatch match;
        if (!std::regex_search(text, match, line)) {
            continue;
        }
        std::string names = match[1];
        static const std::regex name(R"(-{1,2}[A-Za-z0-9_-]+)");
        for (auto it = std::sregex_iterator(names.begin(), names.end(), name);
             it != std::sregex_iterator(); ++it) {
            options.insert(it->str());
        }
    }
    return options;
}

// The options the man page lists: the bold names of its .TP entries under OPTIONS.
std::set<std::string> man_options(const std::string& page) {
    std::set<std::string> options;
    std::string section;
    std::istringstream in(page);
    bool entry = false;
    for (std::string text; std::getline(in, text);) {
        if (text.rfind(".SH ", 0) == 0) {
            section = text.substr(4);
        } else if (text == ".TP") {
            entry = true;
        } else if (entry) {
            entry = false;
            if (section != "OPTIONS") {
                continue;
            }
            static const std::regex bold(R"(\\fB((?:\\-|[A-Za-z0-9_])+)\\fR)");
            for (auto it = std::sregex_iterator(text.begin(), text.end(), bold);
                 it != std::sregex_iterator(); ++it) {
                options.insert(std::regex_replace((*it)[1].str(), std::regex(R"(\\-)"), "-"));
            }
        }
    }
    return options;
}

struct Page {
    std::string file;
    std::vector<std::string> help_args;
};

class ManPage : public testing::TestWithParam<Page> {};

TEST_P(ManPage, ListsExactlyTheOptionsOfHelp) {
    RunResult help = run_colossalai(GetParam().help_args);
    ASSERT_EQ(help.exit_code, 0) << help.err;
    std::string page = read_file(man_dir / GetParam().file);
    ASSERT_FALSE(page.empty()) << "no " << (man_dir / GetParam().file);
    std::set<std::string> in_help = help_options(help.out);
    EXPECT_GT(in_help.size(), 1u) << help.out;
    EXPECT_EQ(man_options(page), in_help) << page;
}

TEST_P(ManPage, IsAManPageOfThatName) {
    std::string page = read_file(man_dir / GetParam().file);
    std::string name = GetParam().file.substr(0, GetParam().file.size() - 2);
    std::string upper;
    for (char c : name) {
        upper += c == '-' ? std::string("\\-") : std::string(1, static_cast<char>(toupper(c)));
    }
    EXPECT_NE(page.find("\n.TH " + upper + " 1 "), std::string::npos) << page;
    EXPECT_NE(page.find("\n.SH SYNOPSIS\n"), std::string::npos) << page;
    EXPECT_NE(page.find("\n.SH SEE ALSO\n"), std::string::npos) << page;
    // The compressed copy is what is installed.
    EXPECT_TRUE(std::filesystem::exists(man_dir / (GetParam().file + ".gz")));
}

INSTANTIATE_TEST_SUITE_P(Pages, ManPage,
                         testing::Values(Page{"colossalai.1", {"--help"}},
                                         Page{"colossalai-check.1", {"check", "--help"}},
                                         Page{"colossalai-run.1", {"run", "--help"}}),
                         [](const testing::TestParamInfo<Page>& info) {
                             std::string name =
                                 info.param.file.substr(0, info.param.file.size() - 2);
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(ManPageHelpParser, FindsEveryNameOfAnOptionLine) {
    EXPECT_EQ(help_options("Options:\n  -h,--help   Print\n  -H,--host HOSTS  Hosts -x\n"
                           "Usage: colossalai run\n"),
              (std::set<std::string>{"-h", "--help", "-H", "--host"}));
}

TEST(ManPageParser, FindsOnlyTheOptionsSection) {
    EXPECT_EQ(man_options(".SH COMMANDS\n.TP\n\\fBrun\\fR\n.SH OPTIONS\n.TP\n\\fB\\-H\\fR, "
                          "\\fB\\-\\-host\\fR \\fIHOSTS\\fR\nHosts \\fB\\-x\\fR\n"),
              (std::set<std::string>{"-H", "--host"}));
}

} // namespace
} // namespace colossalai::test
