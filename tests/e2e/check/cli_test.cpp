// Exit statuses and usage errors of `colossalai check`.

#include "fixture.hpp"

namespace colossalai::test {
namespace {

namespace fs = std::filesystem;

class CheckUsage : public CheckTest {};

TEST_F(CheckUsage, BadPythonIsAUsageError) {
    for (const std::string& bad :
         {(scratch() / "missing" / "python3").string(), scratch().string()}) {
        RunResult result = check({"-i", "--python", bad});
        EXPECT_EQ(result.exit_code, 2) << bad;
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(result.err, "Error: --python '" + bad +
                                  "': not an executable file\n"
                                  "Run 'colossalai check --help' for more information.\n");
    }
    RunResult result = check({"--json", "--python", "python9.9"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "Error: --python 'python9.9': not found in PATH\n"
                          "Run 'colossalai check --help' for more information.\n");
}

TEST_F(CheckUsage, PythonByNameIsLookedUpInPath) {
    RunResult result = check({"-i", "--python", "python3"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    std::vector<std::string> lines = report_lines(result.out);
    ASSERT_EQ(lines.size(), 23u) << result.out;
    EXPECT_EQ(lines[8], venv_python_line());
}

TEST_F(CheckUsage, BadProbeTimeoutIsAUsageError) {
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "soon";
    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err, "Error: COLOSSALAI_PROBE_TIMEOUT_MS='soon': expected a whole number of "
                          "milliseconds between 1 and 86400000\n"
                          "Run 'colossalai check --help' for more information.\n");
}

TEST_F(CheckUsage, NoOptionPrintsTheHelpAndExits2) {
    RunResult result = check({});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    std::vector<std::string> lines = lines_of(result.err);
    ASSERT_GE(lines.size(), 4u) << result.err;
    EXPECT_EQ(lines[0], "Error: no option given to 'colossalai check'");
    EXPECT_EQ(lines[2], "Usage: colossalai check [OPTIONS]");
    EXPECT_EQ(lines.back(), "Run 'colossalai check --help' for more information.");
}

TEST_F(CheckUsage, HelpNamesTheWholeCommand) {
    RunResult result = check({"--help"});
    EXPECT_EQ(result.exit_code, 0);
    std::vector<std::string> lines = lines_of(result.out);
    ASSERT_GE(lines.size(), 2u) << result.out;
    EXPECT_EQ(lines[1], "Usage: colossalai check [OPTIONS]");
    // Its own footer, not the top level's "Run 'colossalai COMMAND --help'".
    EXPECT_EQ(result.out.find("COMMAND"), std::string::npos) << result.out;
    EXPECT_EQ(lines.back(),
              "Exit status: 0 when no check is x, 1 when one is (or, with --host, --hostfile, "
              "--allocation or --launcher slurm, when the nodes differ), 2 for a usage error, 255 "
              "when a node could not be checked.");
}

TEST_F(CheckUsage, UnknownOptionOrArgumentIsAUsageError) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-i", "--bogus"}, std::vector<std::string>{"-i", "extra"},
          std::vector<std::string>{"--python"}}) {
        RunResult result = check(args);
        EXPECT_EQ(result.exit_code, 2) << args.back();
        EXPECT_EQ(result.out, "");
        std::vector<std::string> lines = lines_of(result.err);
        ASSERT_EQ(lines.size(), 2u) << result.err;
        EXPECT_EQ(lines[0].rfind("Error: ", 0), 0u) << lines[0];
        EXPECT_EQ(lines[1], "Run 'colossalai check --help' for more information.");
    }
}

// --launcher slurm's bad input: one line, exit 2, before any srun starts.
TEST_F(CheckUsage, SlurmLauncherOptionsThatCannotWorkAreUsageErrors) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-i", "--launcher", "pbs"}, "Error: --launcher 'pbs': expected ssh or slurm or mpirun"},
        {{"-i", "--launcher", "slurm", "--host", "node1", "--ssh-port", "22"},
         "Error: --ssh-port and --ssh-timeout are for --launcher ssh (srun starts the checks)"},
        {{"-i", "--launcher", "slurm", "--host", "node1", "--ssh-timeout", "5"},
         "Error: --ssh-port and --ssh-timeout are for --launcher ssh (srun starts the checks)"},
        {{"-i", "--host", "node1", "--srun-args", "-p debug"},
         "Error: --srun-args needs --launcher slurm"},
        {{"-i", "--launcher", "slurm", "--host", "node1", "--srun-args", "-N 3"},
         "Error: --srun-args: '-N' is set by the launcher itself"},
        {{"-i", "--launcher", "slurm", "--host", "me@node1"},
         "Error: --launcher slurm: host 'me@node1' names a user; Slurm runs every task as the "
         "user who starts srun"},
    };
    for (const auto& [args, error] : cases) {
        RunResult result = check(args);
        EXPECT_EQ(result.exit_code, 2) << args.back() << ": " << result.err;
        EXPECT_EQ(result.out, "");
        std::vector<std::string> lines = lines_of(result.err);
        ASSERT_EQ(lines.size(), 2u) << result.err;
        EXPECT_EQ(lines[0], error);
    }
}

TEST_F(CheckUsage, JsonImpliesInstallationAndLongFormWorks) {
    RunResult text = check({"--installation"});
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_EQ(report_lines(text.out).front(), "#### Installation Report ####");

    RunResult json_result;
    nlohmann::json report = check_json({"-i"}, &json_result);
    EXPECT_EQ(json_result.exit_code, 0);
    EXPECT_EQ(report["schema_version"], 3);
}

TEST_F(CheckUsage, ExitStatusFollowsTheChecks) {
    install_torch("__version__ = '2.1.0+cu121'\ncuda = '12.1'\n");
    m_env["CUDA_HOME"] = cuda_home("cuda-12.1", nvcc_script("12.1")).string();
    EXPECT_EQ(check({"-i"}).exit_code, 0);

    m_env["CUDA_HOME"] = cuda_home("cuda-11.8", nvcc_script("11.8")).string();
    EXPECT_EQ(check({"-i"}).exit_code, 1);
    RunResult json_result;
    nlohmann::json report = check_json({}, &json_result);
    EXPECT_EQ(json_result.exit_code, 1);
    EXPECT_EQ(report["ok"], false);
}

// Words with a newline or bytes that are not UTF-8 are escaped as \xNN: every usage error of
// docs/reliability.md stays exactly one line, then the hint.
TEST_F(CheckUsage, HostileArgumentsGetOneEscapedLine) {
    struct Case {
        std::vector<std::string> args;
        std::string error;
        std::string command;
    };
    const std::vector<Case> cases = {
        {{"check", "-i", "--python", "python\n3"},
         "--python 'python\\x0a3': not found in PATH",
         "colossalai check"},
        {{"check", "-i", "--python", "/no/py\xff"},
         "--python '/no/py\\xff': not an executable file",
         "colossalai check"},
        {{"check", "-i", "--python", ""},
         "--python '': not an executable file",
         "colossalai check"},
        {{"check", "-i", "\xff"},
         "The following argument was not expected: \\xff",
         "colossalai check"},
        {{"check", "-x"}, "The following argument was not expected: -x", "colossalai check"},
        {{"check", "--bogus"},
         "The following argument was not expected: --bogus",
         "colossalai check"},
        {{"ch\neck"}, "The following argument was not expected: ch\\x0aeck", "colossalai"},
        {{"bogus"}, "The following argument was not expected: bogus", "colossalai"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.error);
        RunOptions options;
        options.env = m_env;
        RunResult result = run_colossalai(c.args, options);
        EXPECT_EQ(result.exit_code, 2);
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(result.err,
                  "Error: " + c.error + "\nRun '" + c.command + " --help' for more information.\n");
    }
    m_env["COLOSSALAI_PROBE_TIMEOUT_MS"] = "10\n20";
    RunResult result = check({"-i"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err, "Error: COLOSSALAI_PROBE_TIMEOUT_MS='10\\x0a20': expected a whole number "
                          "of milliseconds between 1 and 86400000\n"
                          "Run 'colossalai check --help' for more information.\n");
}

} // namespace
} // namespace colossalai::test
