// The generators are private to the cli module: their header lives beside the sources.
#include "../../../src/cli/reference.hpp"
#include "usage_message.hpp"

#include <gtest/gtest.h>

#include <string>

// The command line as data, and the man pages and completion table rendered from it.
namespace colossalai::cli {
namespace {

// A small command tree with one option of each kind.
struct Tree {
    Tree() {
        app.add_flag("--version", flag, "Show the version");
        app.add_option("--secret", text, "Hidden")->group("");
        CLI::App* run = app.add_subcommand("run", "Launch it.");
        run->footer("A footer line.\n\n.A line that starts with a dot");
        run->add_option("-H,--host", text, "Hosts")->type_name("HOSTS");
        run->add_option("--hostfile", text, "A file")->type_name("FILE");
        run->add_option("--log_dir", text, "A directory")->type_name("DIR");
        run->add_option("--master-port", text, "Port")->type_name("PORT")->default_str("29500");
        run->add_option("-m", text, "Module")->type_name("MODULE");
        run->add_option("SCRIPT", text, "The script (.py)");
        run->add_option("ARGS", args, "Its arguments");
    }
    CLI::App app{"Top.", "colossalai"};
    bool flag = false;
    std::string text;
    std::vector<std::string> args;
};

TEST(ValueKind, ComesFromTheValueName) {
    EXPECT_EQ(value_kind(""), ValueKind::none);
    EXPECT_EQ(value_kind("FILE"), ValueKind::file);
    EXPECT_EQ(value_kind("PATH"), ValueKind::file);
    EXPECT_EQ(value_kind("DIR"), ValueKind::directory);
    EXPECT_EQ(value_kind("HOSTS"), ValueKind::hosts);
    EXPECT_EQ(value_kind("MODULE"), ValueKind::rest);
    EXPECT_EQ(value_kind("PORT"), ValueKind::text);
}

TEST(Describe, TakesWhatHelpShowsAndLeavesHiddenOptionsOut) {
    Tree tree;
    CommandReference root = describe(tree.app, "colossalai");
    std::vector<std::string> top;
    for (const OptionReference& option : root.options) {
        top.push_back(option.names.back());
    }
    EXPECT_EQ(top, (std::vector<std::string>{"--help", "--version"}));
    ASSERT_EQ(root.subcommands.size(), 1u);
    const CommandReference& run = root.subcommands[0];
    EXPECT_EQ(run.path, "colossalai run");
    EXPECT_EQ(page_name(run), "colossalai-run");
    EXPECT_EQ(command_name(run), "run");
    ASSERT_EQ(run.options.size(), 6u);
    EXPECT_EQ(run.options[1].names, (std::vector<std::string>{"-H", "--host"}));
    EXPECT_EQ(run.options[1].kind, ValueKind::hosts);
    EXPECT_EQ(run.options[4].default_value, "29500");
    ASSERT_EQ(run.positionals.size(), 2u);
    EXPECT_EQ(run.positionals[0].kind, ValueKind::script);
    EXPECT_FALSE(run.positionals[0].repeated);
    EXPECT_EQ(run.positionals[1].kind, ValueKind::rest);
    EXPECT_TRUE(run.positionals[1].repeated);
}

TEST(CompletionTable, ListsEverySpellingAndKind) {
    Tree tree;
    CommandReference root = describe(tree.app, "colossalai");
    root.subcommands[0].underscore_dash_alike = true;
    std::string table = render_completion_table(root);
    EXPECT_NE(table.find("command\trun\tLaunch it.\n"), std::string::npos) << table;
    EXPECT_NE(table.find("option\tcolossalai\t--version\tflag\tShow the version\n"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("option\trun\t-H,--host\thosts\tHosts\n"), std::string::npos) << table;
    EXPECT_NE(table.find("option\trun\t--log_dir,--log-dir\tdirectory\tA directory\n"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("option\trun\t--master-port,--master_port\ttext\tPort\n"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("option\trun\t-m\trest\tModule\n"), std::string::npos) << table;
    EXPECT_NE(table.find("positional\trun\tSCRIPT\tscript\tThe script (.py)\n"), std::string::npos)
        << table;
    EXPECT_EQ(table.find("secret"), std::string::npos) << table;
}

TEST(ManPage, EscapesRoffAndListsOptionsWithDefaults) {
    Tree tree;
    CommandReference root = describe(tree.app, "colossalai");
    std::string page = render_man_page(root.subcommands[0], "1.2.3", {"colossalai(1)"});
    EXPECT_NE(page.find("\n.TH COLOSSALAI\\-RUN 1 \"\" \"colossalai 1.2.3\" \"User Commands\"\n"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find("\n.SH NAME\ncolossalai\\-run \\- Launch it.\n"), std::string::npos)
        << page;
    EXPECT_NE(
        page.find("\n.B colossalai run\n[\\fIOPTIONS\\fR] \\fISCRIPT\\fR [\\fIARGS\\fR...]\n"),
        std::string::npos)
        << page;
    // A line of text that starts with a dot must not read as a request.
    EXPECT_NE(page.find("A footer line.\n.PP\n\\&.A line that starts with a dot\n"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find(".TP\n\\fB\\-H\\fR, \\fB\\-\\-host\\fR \\fIHOSTS\\fR\nHosts\n"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find("\\fB\\-\\-master\\-port\\fR \\fIPORT\\fR\nPort\n.br\nDefault: 29500.\n"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find("\n.SH SEE ALSO\n.BR colossalai (1)\n"), std::string::npos) << page;
}

TEST(Generate, NamesEachPageAndRefusesOthers) {
    Tree tree;
    CommandReference root = describe(tree.app, "colossalai");
    EXPECT_NE(generate(root, "colossalai-run.1", "1").find(".BR colossalai (1)\n"),
              std::string::npos);
    EXPECT_NE(generate(root, "colossalai.1", "1").find(".BR colossalai\\-run (1)\n"),
              std::string::npos);
    EXPECT_EQ(generate(root, "completion-table", "1"), render_completion_table(root));
    EXPECT_EQ(test::usage_message([&] { generate(root, "run.1", "1"); }).substr(0, 34),
              "--generate: unknown output 'run.1'");
}

} // namespace
} // namespace colossalai::cli
