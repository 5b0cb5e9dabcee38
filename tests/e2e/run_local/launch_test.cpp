// `colossalai run` starting the fake torchrun on this machine: the exact command of each PyTorch
// form, hostile arguments, directory and environment, two local nodes, exit codes, fail-fast.

#include "launch_fixture.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using Words = std::vector<std::string>;

// Words that a shell would split, expand or execute, and bytes that are not UTF-8.
const std::vector<std::string> hostile_words = {"--tag",
                                                "a b",
                                                "it's \"quoted\"",
                                                "$(touch pwned1)",
                                                "`touch pwned2`",
                                                "x; touch pwned3",
                                                "two\nlines",
                                                "\xff\xfe\x80",
                                                "",
                                                "$HOME",
                                                "*",
                                                "tab\there",
                                                "back\\slash",
                                                "--master_port",
                                                "1",
                                                "-H",
                                                "x"};

Words with(Words first, const Words& second) {
    first.insert(first.end(), second.begin(), second.end());
    return first;
}

Words sorted(Words words) {
    std::sort(words.begin(), words.end());
    return words;
}

struct FormCase {
    std::optional<std::string> torch;
    Words prefix; // before the flags: empty for torchrun, else `<python> -m torch.distributed.*`
    Words flags;
    std::string notice = ""; // the broken pair's line (PyTorch 1.9-1.13 on Python 3.11+)
};

TEST_F(RunLaunch, EachCommandFormReceivesTheExactWords) {
    const Words modern = torchrun_flags(2, 1, 0, "127.0.0.1");
    const std::vector<FormCase> cases = {
        {std::nullopt, {}, modern},
        {"1.13.1", {}, modern, broken_pair_line("1.13", "torchrun")},
        {"1.9.0",
         {venv_python(), "-m", "torch.distributed.run"},
         modern,
         broken_pair_line("1.9", "python -m torch.distributed.run")},
        {"1.8.1",
         {venv_python(), "-m", "torch.distributed.launch"},
         {"--nproc_per_node=2", "--master_addr=127.0.0.1", "--master_port=29500", "--nnodes=1",
          "--node_rank=0"}},
    };
    for (const FormCase& c : cases) {
        SCOPED_TRACE(c.torch.value_or("no torch"));
        set_torch(c.torch);
        std::filesystem::remove_all(m_dir / "record");
        std::filesystem::create_directories(m_dir / "record");

        RunResult result =
            run_colossalai_run(with({"--nproc_per_node", "2", "train.py"}, hostile_words));
        EXPECT_EQ(result.exit_code, 0) << result.err;
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(result.err, c.notice + summary_block({"127.0.0.1: success"}));

        Words args = with(with(c.flags, {"train.py"}), hostile_words);
        EXPECT_EQ(recorded_words(0, "argv"), args);
        if (c.prefix.empty()) {
            EXPECT_EQ(read_file(recorded(0, "program")), fake_torchrun().string());
            EXPECT_FALSE(std::filesystem::exists(recorded(0, "cmdline")));
        } else {
            EXPECT_EQ(recorded_words(0, "cmdline"), with(c.prefix, args));
        }
        for (const char* name : {"pwned1", "pwned2", "pwned3"}) {
            EXPECT_FALSE(std::filesystem::exists(job() / name)) << name;
            EXPECT_FALSE(std::filesystem::exists(m_dir / name)) << name;
        }
    }
}

TEST_F(RunLaunch, RunsInTheLaunchersDirectoryWithItsWholeEnvironment) {
    std::filesystem::path cwd = job() / "my 'job' $dir";
    write_file(cwd / "t.py", "");
    Env env = launcher_env();
    env["TRICKY"] = "it's \"q\" $HOME `id` ; a  b \xff";
    env["EMPTY"] = "";
    env["TWO_LINES"] = "one\ntwo";
    env["NOT-AN-IDENTIFIER"] = "kept: a local node inherits everything";
    RunOptions options;
    options.cwd = cwd;
    options.env = env;
    RunResult result = run_colossalai({"run", "--nproc_per_node", "1", "t.py"}, options);
    EXPECT_EQ(result.exit_code, 0) << result.err;

    EXPECT_EQ(read_file(recorded(0, "cwd")), std::filesystem::canonical(cwd).string() + "\n");
    // The launcher's environment, plus PYTHONUNBUFFERED=1 so that output streams through the
    // pipe line by line.
    env["PYTHONUNBUFFERED"] = "1";
    Words expected;
    for (const auto& [name, value] : env) {
        expected.push_back(name + "=" + value);
    }
    EXPECT_EQ(sorted(recorded_words(0, "env")), expected);
}

TEST_F(RunLaunch, APythonUnbufferedOfTheUserIsKept) {
    Env env = launcher_env();
    env["PYTHONUNBUFFERED"] = "";
    RunOptions options;
    options.cwd = job();
    options.env = env;
    RunResult result = run_colossalai({"run", "--nproc_per_node", "1", "t.py"}, options);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    Words recorded = recorded_words(0, "env");
    EXPECT_NE(std::find(recorded.begin(), recorded.end(), "PYTHONUNBUFFERED="), recorded.end());
}

TEST_F(RunLaunch, TwoLocalNodesGetTheirRanksAndPrefixedOutput) {
    two_local_nodes();
    behave("all", "echo \"out of rank $rank\"; echo \"err of rank $rank\" >&2\n");
    RunResult result =
        run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "4", "t.py", "--x"});
    EXPECT_EQ(result.exit_code, 0) << result.err;

    EXPECT_EQ(recorded_words(0, "argv"),
              with(torchrun_flags(4, 2, 0, "localhost"), {"t.py", "--x"}));
    EXPECT_EQ(recorded_words(1, "argv"),
              with(torchrun_flags(4, 2, 1, "localhost"), {"t.py", "--x"}));
    EXPECT_NE(recorded_pid(0), recorded_pid(1));
    EXPECT_EQ(sorted(lines_of(result.out)),
              Words({"127.0.0.1: out of rank 1", "localhost: out of rank 0"}));
    Words err = lines_of(result.err);
    ASSERT_EQ(err.size(), 5u) << result.err;
    EXPECT_EQ(sorted(Words(err.begin(), err.begin() + 2)),
              Words({"127.0.0.1: err of rank 1", "localhost: err of rank 0"}));
    EXPECT_EQ(Words(err.begin() + 2, err.end()),
              lines_of(summary_block({"localhost: success", "127.0.0.1: success"})));
}

struct EndCase {
    std::string script;
    int exit_code;
    std::string outcome;
};

TEST_F(RunLaunch, TheNodesEndIsTheLaunchersExitStatus) {
    const std::vector<EndCase> cases = {
        {"exit 0", 0, "success"},
        {"exit 3", 3, "failure (exit code 3)"},
        {"exit 255", 255, "failure (exit code 255)"},
        {"kill -KILL $$", 137, "failure (killed by SIGKILL)"},
        {"kill -USR1 $$", 138, "failure (killed by SIGUSR1)"},
        {"kill -TERM $$", 143, "failure (killed by SIGTERM)"},
    };
    for (const EndCase& c : cases) {
        SCOPED_TRACE(c.script);
        behave("all", c.script + "\n");
        RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"});
        EXPECT_EQ(result.exit_code, c.exit_code);
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(result.err, summary_block({"127.0.0.1: " + c.outcome}));
    }
}

TEST_F(RunLaunch, ATorchrunNotOnPathIsAClearFailure) {
    Env env = launcher_env();
    env["PATH"] = venv_bin().string(); // /bin and /usr/bin hold Debian's real torchrun
    RunResult result = run_colossalai_run({"--nproc_per_node", "1", "t.py"}, env);
    // Found by the node's preflight: nothing starts, and the line says what to do.
    EXPECT_EQ(result.exit_code, 254);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(
        result.err,
        summary_block({"127.0.0.1: failure (cannot find 'torchrun' (on the node's PATH; give a "
                       "Python that has PyTorch with --python PATH, or set the node's PATH with "
                       "-x PATH=...))"}));
    EXPECT_FALSE(torchrun_called());
}

// A local node and a remote one that cannot be reached: nothing starts, and the local node's
// line reads as a remote node's would, "stopped by the launcher" once.
TEST_F(RunLaunch, ALocalNodeBesideAnUnreachableHostIsNotStarted) {
    RunResult result = run_colossalai_run({"--host", "localhost,nobody@127.0.0.1", "--ssh-port",
                                           "1", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 255);
    EXPECT_EQ(result.out, "");
    std::vector<std::string> lines = lines_of(result.err);
    ASSERT_GE(lines.size(), 3u) << result.err;
    EXPECT_EQ(lines[lines.size() - 3], "====== Training on All Nodes =====") << result.err;
    EXPECT_EQ(lines[lines.size() - 2], "localhost: failure (not started, stopped by the launcher)");
    EXPECT_TRUE(lines.back().starts_with("nobody@127.0.0.1: failure (")) << result.err;
    EXPECT_EQ(lines.back().find("not started"), std::string::npos) << result.err;
    EXPECT_FALSE(torchrun_called());
}

struct FailCase {
    std::string script; // what node 0 does once node 1 sleeps
    int exit_code;
    std::string reason;
};

// Node 1 sleeps with a child and a grandchild; node 0 fails once node 1 is ready.
TEST_F(RunLaunch, AFailingNodeStopsTheOthersWithSigterm) {
    two_local_nodes();
    const std::vector<FailCase> cases = {
        {"exit 3", 3, "exit code 3"},
        {"kill -USR1 $$", 138, "killed by SIGUSR1"},
    };
    for (const FailCase& c : cases) {
        SCOPED_TRACE(c.script);
        std::filesystem::remove_all(m_dir / "record");
        std::filesystem::create_directories(m_dir / "record");
        behave("1", "spawn\nready\nwait\n");
        behave("0", "while [ ! -e \"$record/1.ready\" ]; do sleep 0.01; done\n" + c.script + "\n");
        RunResult result =
            run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
        EXPECT_EQ(result.exit_code, c.exit_code);
        EXPECT_EQ(result.err,
                  "colossalai: localhost failed (" + c.reason + "); stopping the other nodes\n" +
                      summary_block({"localhost: failure (" + c.reason + ")",
                                     "127.0.0.1: failure (killed by SIGTERM, stopped by "
                                     "the launcher)"}));
        expect_job_gone(1, 3);
        expect_nothing_left();
    }
}

TEST_F(RunLaunch, ANodeIgnoringSigtermIsKilledAfterTheGrace) {
    two_local_nodes();
    behave("1", "trap '' TERM\nspawn\nready\nwait\n");
    behave("0", "while [ ! -e \"$record/1.ready\" ]; do sleep 0.01; done\nexit 3\n");
    RunResult result = run_colossalai_run(
        {"--hostfile", "hosts", "--kill-grace", "1", "--nproc_per_node", "1", "t.py"});
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_EQ(
        result.err,
        "colossalai: localhost failed (exit code 3); stopping the other nodes\n"
        "colossalai: nodes still running 1000 ms after SIGTERM; sending SIGKILL\n" +
            summary_block({"localhost: failure (exit code 3)",
                           "127.0.0.1: failure (killed by SIGKILL after SIGTERM, stopped by the "
                           "launcher)"}));
    expect_job_gone(1, 3);
    expect_nothing_left();
}

} // namespace
} // namespace colossalai::test
