// Environment control and log files on this machine: what -x and the env files set reaches a
// local node on top of the launcher's environment (--env-exclude drops nothing there: the
// launcher's values are the node's own); the default file is ./.colossalai_env, else
// ~/.colossalai_env; bad values are usage errors before anything starts; --log-dir holds the
// node's bytes exactly, also when the launcher's stdout is closed.

#include "launch_fixture.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

class RunEnvironment : public RunLaunch {
protected:
    std::optional<std::string> variable(const std::string& name) const {
        for (const std::string& entry : recorded_words(0, "env")) {
            if (entry.rfind(name + "=", 0) == 0) {
                return entry.substr(name.size() + 1);
            }
        }
        return std::nullopt;
    }

    // launcher_env() with HOME = home().
    Env env_with_home() const {
        Env env = launcher_env();
        env["HOME"] = home().string();
        return env;
    }
    std::filesystem::path home() const { return m_dir / "home"; }
};

TEST_F(RunEnvironment, DashXAndEnvFilesSetVariablesOnALocalNode) {
    write_file(job() / "a.env", "FROM_A=a\nBOTH=a\nNCCL_DEBUG=from the file\n");
    write_file(job() / "b.env", "BOTH=b\n");
    Env env = launcher_env();
    env["FORWARD_ME"] = "launcher's";
    RunResult result = run_colossalai_run({"--env-file", "a.env", "--env-file", "b.env", "-x",
                                           "SET=x y", "-xFORWARD_ME", "--env-exclude", "NCCL_*",
                                           "--nproc_per_node", "1", "t.py"},
                                          env);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(variable("FROM_A"), "a");
    EXPECT_EQ(variable("BOTH"), "b");
    EXPECT_EQ(variable("SET"), "x y");
    EXPECT_EQ(variable("FORWARD_ME"), "launcher's");
    // The file's NCCL_DEBUG is excluded; the launcher's own stays on a local node.
    EXPECT_EQ(variable("NCCL_DEBUG"), "INFO");
}

TEST_F(RunEnvironment, TheDefaultEnvFileIsTheCurrentDirectorysElseTheHomes) {
    write_file(home() / ".colossalai_env", "WHERE=home\n");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"}, env_with_home());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(variable("WHERE"), "home");
    EXPECT_EQ(lines_of(result.err)[0], "colossalai: setting the variables of " +
                                           (home() / ".colossalai_env").string() +
                                           " on every node");

    write_file(job() / ".colossalai_env", "WHERE=here\n");
    result = run_colossalai_run({"--nproc_per_node", "1", "t.py"}, env_with_home());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(variable("WHERE"), "here");
}

TEST_F(RunEnvironment, BadValuesAreUsageErrorsAndNothingStarts) {
    write_file(job() / "bad.env", "# ok\nGOOD=1\nexport BAD=1\n");
    std::filesystem::create_directories(job() / "dir");
    write_file(job() / "file", "");
    const std::vector<std::pair<Words, std::string>> cases = {
        {{"-x", "PPID=1"},
         "-x: 'PPID' is a read-only shell variable; it cannot be passed to a "
         "node"},
        {{"-x", "A-B=1"},
         "-x: 'A-B' is not a variable name (letters, digits and _, not "
         "starting with a digit)"},
        {{"-x", "UNSET_HERE"},
         "-x: 'UNSET_HERE' is not set in the launcher's environment (use -x UNSET_HERE=VALUE)"},
        {{"-x", "A=two\nlines"},
         "-x: the value of 'A' holds a line break, which cannot be passed to a node"},
        {{"--env-file", "bad.env"}, "bad.env:3: expected NAME=VALUE, found 'export'"},
        {{"--env-file", "missing.env"}, "--env-file 'missing.env': No such file or directory"},
        {{"--env-exclude", "NCCL_*,"}, "--env-exclude 'NCCL_*,': an empty pattern"},
        {{"--log-dir", "file"}, "--log-dir 'file': not a directory"},
    };
    for (const auto& [flags, message] : cases) {
        Words args = flags;
        args.insert(args.end(), {"--nproc_per_node", "1", "t.py"});
        RunResult result = run_colossalai_run(args);
        EXPECT_EQ(result.exit_code, 2) << message;
        EXPECT_EQ(lines_of(result.err).at(0), "Error: " + message);
        EXPECT_FALSE(torchrun_called()) << message;
    }
    // A missing --log-dir is created only when nothing else is wrong.
    RunResult refused = run_colossalai_run(
        {"--log-dir", "new/logs", "-x", "PPID=1", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_FALSE(std::filesystem::exists(job() / "new")) << refused.err;
    // A bad line in the default file is refused too.
    write_file(job() / ".colossalai_env", "NO_EQUALS\n");
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(lines_of(result.err).at(0), "Error: " + (job() / ".colossalai_env").string() +
                                              ":1: expected NAME=VALUE, found 'NO_EQUALS'");
    EXPECT_FALSE(torchrun_called());
}

// 1 MiB and a last line without a newline on stdout, a line on stderr: the log files hold the
// node's exact bytes, also with the launcher's stdout closed (its own output is dropped then).
TEST_F(RunEnvironment, LogDirHoldsTheNodesBytesEvenWithStdoutClosed) {
    const std::string out = std::string(1 << 20, 'x') + "\nlast line without newline";
    state_file("out1", out);
    behave("all", "out out1\necho 'a warning' >&2\n");
    for (bool closed : {false, true}) {
        std::filesystem::path dir = job() / (closed ? "closed" : "logs");
        Words argv = {"/bin/sh", "-c",
                      std::string("exec \"$0\" run --log-dir \"$1\" --nproc_per_node 1 t.py") +
                          (closed ? " >&-" : ""),
                      binary().string(), dir.string()};
        RunOptions options;
        options.cwd = job();
        options.env = launcher_env();
        RunResult result = run(argv, options);
        ASSERT_EQ(result.exit_code, 0) << result.err;
        EXPECT_TRUE(read_file(dir / "0-127.0.0.1.out") == out) << closed;
        EXPECT_EQ(read_file(dir / "0-127.0.0.1.err"), "a warning\n");
        if (!closed) {
            EXPECT_TRUE(result.out == out);
        }
        EXPECT_NE(
            result.err.find("colossalai: the nodes' output is also in " + dir.string() + "/\n"),
            std::string::npos)
            << result.err;
    }
}

// Fail-fast tears node 0 down (SIGTERM to its group): its log still holds what it wrote.
TEST_F(RunEnvironment, ATornDownNodesLogIsComplete) {
    two_local_nodes();
    behave("0", "printf 'before the end\\npartial'\ntouch \"$record/0.said\"\nexec sleep 1000\n");
    behave("1", "while [ ! -e \"$record/0.said\" ]; do sleep 0.01; done\nexit 3\n");
    RunResult result = run_colossalai_run(
        {"--hostfile", "hosts", "--log-dir", "logs", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 3) << result.err;
    EXPECT_EQ(read_file(job() / "logs/0-localhost.out"), "before the end\npartial");
    EXPECT_EQ(read_file(job() / "logs/1-127.0.0.1.out"), "");
    expect_nothing_left();
}

} // namespace
} // namespace colossalai::test
