// The node's reading of its own PyTorch and Python (issue #40): the preflight's sh lines run
// under /bin/sh over a fake tree (a venv with pyvenv.cfg and torch/version.py, a torchrun
// whose `#!` line names it), and what the node's notice text parses to.

#include "files.hpp"
#include "process.hpp"

#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace colossalai::job {
namespace {

using test::TempDir;

// The bounds run::torch_forms gives (PyTorch 1.9 to 1.13 on Python 3.11 and newer).
constexpr BrokenPair broken{{1, 9, std::nullopt}, {2, 0, std::nullopt}, {3, 11, std::nullopt}};

class TorchPairOnANode : public ::testing::Test {
protected:
    // A venv at <tmp>/venv of Python `python` (pyvenv.cfg's `key`) whose site-packages hold
    // PyTorch `torch` (nullopt: none), with bin/torchrun naming its python.
    void venv(const std::string& python, std::optional<std::string> torch,
              const std::string& key = "version") {
        m_dir.write("venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n" +
                                           key + " = " + python + "\n");
        m_dir.write("venv/bin/python", "", 0755);
        m_dir.write("venv/bin/torchrun", "#!" + (m_dir / "venv/bin/python").string() + "\n", 0755);
        if (torch) {
            std::string minor = python.substr(0, python.rfind('.'));
            m_dir.write("venv/lib/python" + minor + "/site-packages/torch/version.py",
                        "from typing import Optional\n__version__ = '" + *torch +
                            "'\ndebug = False\n");
        }
    }

    // What the lines say for --python `python` (empty: torchrun's `#!` line) and the command
    // `command` (a path, or a name on the venv's bin).
    test::RunResult run_shell(const std::string& python, const std::string& command) const {
        std::string script =
            "notice() { printf '%s\\n' \"$1\"; }\np=$1 c=$2\n" +
            torch_pair_shell({.notice = "notice", .python = "p", .command = "c"}, broken) +
            "echo ready\n";
        test::RunOptions options;
        options.env = {{"PATH", (m_dir / "venv/bin").string() + ":/usr/bin:/bin"}};
        return test::run({"/bin/sh", "-c", script, "sh", python, command}, options);
    }
    std::string said(const std::string& python = "", const std::string& command = "torchrun") {
        test::RunResult result = run_shell(python, command);
        EXPECT_EQ(result.exit_code, 0) << test::describe(result);
        return result.out;
    }

    TempDir m_dir{"torch-pair"};
};

TEST_F(TorchPairOnANode, Python311WithTorch113IsNamedFromTheShebang) {
    venv("3.11.2", "1.13.0a0+git6c9b55e");
    EXPECT_EQ(said(), "pair 1.13 3.11\nready\n");
}

TEST_F(TorchPairOnANode, ThePythonGivenIsReadAndUvsVersionInfoToo) {
    venv("3.12.1", "1.9.0", "version_info");
    EXPECT_EQ(said((m_dir / "venv/bin/python").string(), "python"), "pair 1.9 3.12\nready\n");
    EXPECT_EQ(said("python", "python"), "pair 1.9 3.12\nready\n"); // a bare name, from PATH
}

TEST_F(TorchPairOnANode, APairThatWorksSaysNothing) {
    venv("3.11.2", "2.1.0+cu121");
    EXPECT_EQ(said(), "ready\n");
    venv("3.10.12", "1.13.1");
    EXPECT_EQ(said(), "ready\n");
    venv("3.11.4", "1.8.1"); // before torch.distributed.run
    EXPECT_EQ(said(), "ready\n");
}

TEST_F(TorchPairOnANode, WhatCannotBeReadSaysNothing) {
    venv("3.11.2", std::nullopt); // no torch/version.py
    EXPECT_EQ(said(), "ready\n");
    venv("3.11.2", "1.13.0");
    EXPECT_EQ(said("", "no-such-torchrun"), "ready\n");
    m_dir.write("venv/bin/torchrun", "not a script\n", 0755); // no `#!` line
    EXPECT_EQ(said(), "ready\n");
    m_dir.write("venv/pyvenv.cfg", "home = /usr/bin\n"); // no version, a name without one
    m_dir.write("venv/bin/torchrun", "#!" + (m_dir / "venv/bin/python").string() + "\n", 0755);
    EXPECT_EQ(said(), "ready\n");
}

TEST_F(TorchPairOnANode, TheResolvedNameGivesPythonsVersion) {
    // No pyvenv.cfg: a prefix whose python is a link to python3.11 (as /usr/bin/python3 is).
    m_dir.write("prefix/bin/python3.11", "", 0755);
    std::filesystem::create_symlink("python3.11", m_dir / "prefix/bin/python3");
    m_dir.write("prefix/lib/python3.11/site-packages/torch/version.py",
                "__version__ = \"1.10.2\"\n");
    m_dir.write("prefix/bin/torchrun", "#! " + (m_dir / "prefix/bin/python3").string() + " -u\n",
                0755);
    EXPECT_EQ(said("", (m_dir / "prefix/bin/torchrun").string()), "pair 1.10 3.11\nready\n");
}

// The check's word, as the wrapper and the task script carry it: none reads nothing; `shebang`
// reads torchrun's `#!` line; `command` takes the command for the interpreter.
TEST_F(TorchPairOnANode, TheCheckWordSaysWhetherAndWhereToRead) {
    venv("3.11.2", "1.13.0a0");
    auto said_for = [this](std::optional<TorchPairCheck> check, const std::string& command) {
        std::string script = "notice() { printf '%s\\n' \"$1\"; }\nw=$1 c=$2\n" +
                             torch_pair_check_shell("notice", "w", "c", broken) + "echo ready\n";
        test::RunOptions options;
        options.env = {{"PATH", (m_dir / "venv/bin").string() + ":/usr/bin:/bin"}};
        test::RunResult result = test::run(
            {"/bin/sh", "-c", script, "sh", std::string(torch_pair_word(check)), command}, options);
        EXPECT_EQ(result.exit_code, 0) << test::describe(result);
        return result.out;
    };
    EXPECT_EQ(torch_pair_word(std::nullopt), "");
    EXPECT_EQ(said_for(std::nullopt, "torchrun"), "ready\n");
    TorchPairCheck shebang{TorchInterpreter::shebang, "torchrun", broken};
    EXPECT_EQ(said_for(shebang, "torchrun"), "pair 1.13 3.11\nready\n");
    TorchPairCheck command{TorchInterpreter::command, "python -m torch.distributed.run", broken};
    EXPECT_EQ(said_for(command, (m_dir / "venv/bin/python").string()), "pair 1.13 3.11\nready\n");
}

// The node wrapper and the task script keep their own values in `cai_` variables: the check sets
// none of them (it runs in a subshell), the word included.
TEST_F(TorchPairOnANode, TheCheckLeavesTheShellsVariablesAsTheyWere) {
    venv("3.11.2", "1.13.0a0");
    std::string script = "notice() { printf '%s\\n' \"$1\"; }\nw=shebang c=torchrun cai_y=kept "
                         "cai_s=kept cai_p=kept\n" +
                         torch_pair_check_shell("notice", "w", "c", broken) +
                         "echo \"$w $cai_y $cai_s $cai_p\"\n";
    test::RunOptions options;
    options.env = {{"PATH", (m_dir / "venv/bin").string() + ":/usr/bin:/bin"}};
    test::RunResult result = test::run({"/bin/sh", "-c", script}, options);
    EXPECT_EQ(result.out, "pair 1.13 3.11\nshebang kept kept kept\n") << test::describe(result);
}

// The launcher's line for a node's notice: the pair it read, the form its check names.
TEST(NodePair, TheNodesNoticeNamesItsPairAndTheForm) {
    TorchPairCheck check{TorchInterpreter::shebang, "torchrun", broken};
    EXPECT_EQ(describe_node_notice(check, "pair 1.13 3.11"),
              "PyTorch 1.13 on Python 3.11: torchrun stops before any worker starts (torch's "
              "to_std loses --redirects/--tee 0 and 3 on Python 3.11+, fixed in PyTorch 2.0); "
              "--extra_launch_args redirects=9:1,tee=9:1 avoids it, leaving the streams "
              "untouched, for up to 9 processes per node");
    EXPECT_EQ(describe_node_notice(std::nullopt, "pair 1.13 3.11"), std::nullopt);
    EXPECT_EQ(describe_node_notice(check, "pair 1.13"), std::nullopt);
}

TEST(NodePair, TheNoticeTextGivesBothVersions) {
    std::optional<NodePair> pair = parse_node_pair("pair 1.13 3.11");
    ASSERT_TRUE(pair);
    EXPECT_EQ(pair->torch, (util::Version{1, 13, std::nullopt}));
    EXPECT_EQ(pair->python, (util::Version{3, 11, std::nullopt}));
    EXPECT_FALSE(parse_node_pair("pair 1.13"));
    EXPECT_FALSE(parse_node_pair("pair x 3.11"));
    EXPECT_FALSE(parse_node_pair("gpus 2 smi"));
}

} // namespace
} // namespace colossalai::job
