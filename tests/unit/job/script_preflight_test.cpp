// The script check of the preflight: the node's shell (preflight_shell's line, after its `cd`)
// and a local node (local_preflight) both read the script as torchrun will open it, relative to
// the working directory; a node whose script is missing is one failure naming the path.

#include "files.hpp"
#include "process.hpp"

#include "colossalai/job/local_preflight.hpp"
#include "colossalai/job/node_command.hpp"
#include "colossalai/job/preflight.hpp"

#include <gtest/gtest.h>

#include <string>

namespace colossalai::job {
namespace {

// The shell names of these tests, the script's variable `script` (empty: no script check).
PreflightShellNames names(std::string_view script) {
    return {.fail = "fail",
            .directory = "d",
            .command = "c",
            .master = "m",
            .interfaces = "i",
            .gpus = "u",
            .script = script};
}

class ScriptOnANode : public ::testing::Test {
protected:
    ScriptOnANode() { m_dir.write("job/train.py", "print(1)\n"); }

    // The preflight's lines in a shell whose working directory and script are these.
    test::RunResult run_shell(const std::string& script) const {
        std::string program = "fail() { printf '%s\\n' \"$1\"; exit 3; }\n"
                              "d=$1 c=sh m= i= u= s=$2\n" +
                              preflight_shell(names("s")) + "echo ready\n";
        return test::run({"/bin/sh", "-c", program, "sh", (m_dir / "job").string(), script});
    }

    std::optional<PreflightFailure> run_local(std::optional<std::string> script) const {
        NodeCommand command;
        command.working_directory = (m_dir / "job").string();
        command.argv = {"sh"};
        command.preflight.script = std::move(script);
        return local_preflight(command, {"PATH=/usr/bin:/bin"});
    }

    test::TempDir m_dir{"script-preflight"};
};

TEST_F(ScriptOnANode, TheShellReadsTheScriptFromTheWorkingDirectory) {
    test::RunResult present = run_shell("train.py");
    EXPECT_EQ(present.exit_code, 0) << test::describe(present);
    EXPECT_EQ(present.out, "ready\n");
    test::RunResult absolute = run_shell((m_dir / "job/train.py").string());
    EXPECT_EQ(absolute.out, "ready\n") << test::describe(absolute);
    test::RunResult none = run_shell(""); // -m, no_python: the wrapper passes ''
    EXPECT_EQ(none.out, "ready\n") << test::describe(none);
    test::RunResult missing = run_shell("trian.py");
    EXPECT_EQ(missing.exit_code, 3) << test::describe(missing);
    EXPECT_EQ(missing.out, "script\n");
}

TEST_F(ScriptOnANode, WithoutAScriptVariableTheShellChecksNone) {
    std::string lines = preflight_shell(names(""));
    EXPECT_EQ(lines.find("script"), std::string::npos);
    EXPECT_NE(preflight_shell(names("s")).find("|| fail script"), std::string::npos);
}

TEST_F(ScriptOnANode, ALocalNodeReadsItTheSameWay) {
    EXPECT_EQ(run_local("train.py"), std::nullopt);
    EXPECT_EQ(run_local(std::nullopt), std::nullopt); // -m, --no_python: nothing checked
    std::optional<PreflightFailure> missing = run_local("trian.py");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->check, PreflightCheck::script);
    EXPECT_EQ(missing->subject, "trian.py");
}

TEST(ScriptFailure, TheNodesLineNamesThePathTheNodeWasGiven) {
    NodeCommand command;
    command.preflight.script = "scripts/train.py";
    std::optional<PreflightFailure> failure = parse_failed_check("script", command);
    ASSERT_TRUE(failure);
    EXPECT_EQ(failure->check, PreflightCheck::script);
    EXPECT_EQ(failure->subject, "scripts/train.py");
}

} // namespace
} // namespace colossalai::job
