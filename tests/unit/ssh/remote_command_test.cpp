#include "fake_gpus.hpp"
#include "files.hpp"
#include "process.hpp"

#include "colossalai/exec/signal_policy.hpp"
#include "colossalai/run/torch_forms.hpp"
#include "colossalai/ssh/remote_command.hpp"
#include "colossalai/util/quote.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <filesystem>

// The node wrapper, run by a local /bin/sh exactly as a remote login shell would run it.
namespace colossalai::ssh {
namespace {

using namespace std::chrono_literals;
using test::RunResult;

job::NodeCommand node(std::vector<std::string> argv, std::string cwd = "/tmp") {
    job::NodeCommand command;
    command.host = "node1";
    command.argv = std::move(argv);
    command.working_directory = std::move(cwd);
    command.environment = {{"COLOSSALAI_TEST_VALUE", "a 'b' $HOME `id` $(id) \\ ;"},
                           {"PATH", "/usr/bin:/bin"}};
    return command;
}

constexpr std::string_view started = "\036colossalai-started\n";
constexpr std::string_view ready = "\036colossalai-ready\n";

// Runs the login command under /bin/sh as the login shell (as sshd would run it), with its
// stdin on a FIFO that the test script holds open as fd 4, like the launcher holds the channel:
// the wrapper's input (program, arguments, environment: `input`, a shell word; "$INPUT" is
// wrapper_input()) is written first; once the wrapper has answered (or ended), as the launcher
// waits for every node's answer, the `go` line (unless `go` is false), then `actions` (a shell
// snippet that may write control lines to fd 4 or close it); then the script waits for the
// wrapper and prints what it printed and its status. The script's own report of a wrapper killed
// by a signal ("Terminated") goes to /dev/null: the stderr the tests see is the wrapper's alone.
// The wrapper's started line is taken off `out`, and its ready line after it (with `go`).
RunResult run_wrapper(const job::NodeCommand& command, const std::string& actions,
                      std::chrono::milliseconds grace = 2000ms,
                      const std::string& input = "\"$INPUT\"",
                      std::chrono::milliseconds silence_limit = 0ms, bool go = true,
                      ExitLine exit_line = ExitLine::omitted, bool close_input = false) {
    test::TempDir dir("colossalai-wrapper");
    std::string fifo = util::shell_quote((dir.path() / "stdin").string());
    std::string out = util::shell_quote((dir.path() / "out").string());
    std::string script = "mkfifo " + fifo + " && : > " + out + " || exit 1; /bin/sh -c " +
                         util::shell_quote(std::string(login_command())) + " < " + fifo + " > " +
                         out + " & w=$!; exec 4> " + fifo + "; printf %s " + input + " >&4; " +
                         (close_input ? "exec 4>&-; " : "") + "i=0; while ! grep -q " +
                         "'colossalai-[rf]' " + out +
                         " && kill -0 $w 2>/dev/null && [ $i -lt 400 ]; do " +
                         "sleep 0.05; i=$((i+1)); done; " + (go ? "echo go >&4; " : "") + actions +
                         "\nwait $w 2>/dev/null; s=$?; cat " + out + "; echo \"status=$s\"";
    test::RunOptions options;
    options.env = std::map<std::string, std::string>{
        {"PATH", "/usr/bin:/bin"},
        {"INPUT", wrapper_input(command, grace, silence_limit, exit_line)}};
    options.timeout = 20000ms;
    RunResult result = test::run({"/bin/sh", "-c", script}, options);
    if (result.out.rfind(started, 0) == 0) {
        result.out.erase(0, started.size());
    }
    if (go && result.out.rfind(ready, 0) == 0) {
        result.out.erase(0, ready.size());
    }
    return result;
}

// The wrapper's checks alone: its input, no `go`, then end of input.
RunResult run_preflight(const job::NodeCommand& command) {
    return run_wrapper(command, "exec 4>&-", 2000ms, "\"$INPUT\"", 0ms, false);
}

TEST(RemoteCommand, ArgumentsEnvironmentAndDirectoryArriveIntact) {
    std::vector<std::string> hostile{
        "a b",     "$(touch /tmp/colossalai-pwned)", "`id`", "it's", "new\nline", "semi;colon", "",
        "\xff\xfe"};
    std::vector<std::string> argv{"/bin/sh", "-c",
                                  "printf '[%s]\\n' \"$@\"; printf '%s\\n' "
                                  "\"$COLOSSALAI_TEST_VALUE\"; pwd",
                                  "sh"};
    argv.insert(argv.end(), hostile.begin(), hostile.end());
    RunResult result = run_wrapper(node(argv, "/usr"), "");
    std::string expected;
    for (const std::string& word : hostile) {
        expected += "[" + word + "]\n";
    }
    expected += "a 'b' $HOME `id` $(id) \\ ;\n/usr\nstatus=0\n";
    EXPECT_EQ(result.out, expected);
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, ExitStatusComesBack) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "exit 3"}), "");
    EXPECT_EQ(result.out, "status=3\n");
}

TEST(RemoteCommand, AJobKilledBySignalEndsTheWrapperWith128PlusN) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "kill -s SEGV $$"}), "");
    EXPECT_EQ(result.out, "status=" + std::to_string(128 + SIGSEGV) + "\n");
}

TEST(RemoteCommand, ControlLinesSignalTheJobsGroup) {
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started; sleep 30; echo never"});
    RunResult result = run_wrapper(command, "sleep 0.5; echo TERM >&4");
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGTERM) + "\n");
    EXPECT_EQ(result.err, ""); // no "Terminated" from sh: the status says it
}

TEST(RemoteCommand, InterruptStopsAProgramWithoutItsOwnHandler) {
    // As on a local node: SIGINT's default action, although sh starts background jobs with it
    // ignored.
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "echo started; exec sleep 30"}),
                                   "sleep 0.5; echo INT >&4");
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGINT) + "\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, AStopLineRightAfterTheEnvironmentIsNotLost) {
    // The launcher stopped the job while it was connecting: TERM follows the block at once,
    // before the job has made itself a process group leader. Several times, as it is a race.
    for (int i = 0; i < 5; ++i) {
        RunResult result =
            run_wrapper(node({"/bin/sh", "-c", "sleep 30; echo never"}), "echo TERM >&4");
        EXPECT_EQ(result.out, "status=" + std::to_string(128 + SIGTERM) + "\n") << i;
        EXPECT_EQ(result.err, "") << i;
    }
}

TEST(RemoteCommand, EndOfInputRightAfterTheEnvironmentStopsTheJob) {
    for (int i = 0; i < 5; ++i) {
        RunResult result =
            run_wrapper(node({"/bin/sh", "-c", "sleep 30; echo never"}), "exec 4>&-");
        EXPECT_EQ(result.out, "status=" + std::to_string(128 + SIGTERM) + "\n") << i;
    }
}

TEST(RemoteCommand, EndOfInputStopsTheWholeJob) {
    std::string marker = "colossalai-wrapper-eof-" + std::to_string(::getpid());
    // A child in the background that outlives its parent's TERM unless the group is stopped.
    job::NodeCommand command =
        node({"/bin/sh", "-c", "sh -c 'sleep 30; : " + marker + "' & echo started; wait"});
    RunResult result = run_wrapper(command, "sleep 1; exec 4>&-");
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGTERM) + "\n");
    EXPECT_TRUE(
        test::eventually([&] { return test::processes_with_marker(marker).empty(); }, 3000ms));
}

TEST(RemoteCommand, KillsAJobThatIgnoresSigtermAfterTheGrace) {
    job::NodeCommand command =
        node({"/bin/sh", "-c", "trap '' TERM; echo started; sleep 30; sleep 30"});
    RunResult result = run_wrapper(command, "sleep 1; exec 4>&-", 300ms);
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGKILL) + "\n");
    EXPECT_EQ(result.err, ""); // no "Killed" from sh
}

TEST(RemoteCommand, SilenceStopsTheWholeJobLikeEndOfInput) {
    // A host cut off by the network, or a launcher stopped by SIGSTOP: the channel stays open,
    // nothing more arrives. The wrapper ends by SIGALRM: not the job's status, which only says
    // that the wrapper stopped it.
    std::string marker = "colossalai-wrapper-silence-" + std::to_string(::getpid());
    job::NodeCommand command =
        node({"/bin/sh", "-c", "sh -c 'sleep 30; : " + marker + "' & echo started; wait"});
    RunResult result = run_wrapper(command, "", 2000ms, "\"$INPUT\"", 1000ms);
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGALRM) + "\n");
    EXPECT_EQ(result.err, "");
    EXPECT_TRUE(
        test::eventually([&] { return test::processes_with_marker(marker).empty(); }, 3000ms));
}

// The exit line (for the ssh program, whose 255 is also a lost connection): the last bytes on
// stdout, after the job's output, even one without its newline; the silence limit's is named.
TEST(RemoteCommand, TheExitLineFollowsTheJobsLastOutput) {
    struct Case {
        std::string job;
        std::chrono::milliseconds silence_limit;
        std::string out;
    };
    for (const Case& c : {Case{"printf 'no newline'; exit 255", 0ms,
                               "no newline\036colossalai-exit 255\nstatus=255\n"},
                          Case{"echo started; sleep 30", 1000ms,
                               "started\n\036colossalai-exit ALRM\nstatus=" +
                                   std::to_string(128 + SIGALRM) + "\n"}}) {
        SCOPED_TRACE(c.job);
        RunResult result = run_wrapper(node({"/bin/sh", "-c", c.job}), "", 2000ms, "\"$INPUT\"",
                                       c.silence_limit, true, ExitLine::printed);
        EXPECT_EQ(result.out, c.out);
        EXPECT_EQ(result.err, "");
    }
}

// A job that ended before the silence limit passed keeps its own status.
TEST(RemoteCommand, AJobThatEndsBeforeTheSilenceLimitKeepsItsStatus) {
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "echo done; exit 3"}), "sleep 2", 2000ms,
                                   "\"$INPUT\"", 1000ms);
    EXPECT_EQ(result.out, "done\nstatus=3\n");
    EXPECT_EQ(result.err, "");
}

// The silence limit counts from `go`, not from the ready line: with `go` 1.5 s after it and a
// limit of 1 s, the job starts, and the limit stops it about 1 s later.
TEST(RemoteCommand, AGoLateAfterTheReadyLineStillStartsTheLimit) {
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started; sleep 6; echo late"});
    RunResult result =
        run_wrapper(command, "sleep 1.5; echo go >&4", 2000ms, "\"$INPUT\"", 1000ms, false);
    EXPECT_EQ(result.out,
              std::string(ready) + "started\nstatus=" + std::to_string(128 + SIGALRM) + "\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, HeartbeatsKeepTheJobRunning) {
    // Empty lines every 0.2 s for longer than the silence limit; the job ends by itself. PIPE
    // ignored: a heartbeat may still go out after the wrapper is gone.
    job::NodeCommand command = node({"/bin/sh", "-c", "sleep 3; echo done"});
    RunResult result = run_wrapper(command,
                                   "trap '' PIPE; i=0; while [ $i -lt 20 ]; do echo >&4; "
                                   "sleep 0.2; i=$((i+1)); done 2>/dev/null",
                                   2000ms, "\"$INPUT\"", 2000ms);
    EXPECT_EQ(result.out, "done\nstatus=0\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, ControlLinesStillWorkUnderASilenceLimit) {
    RunResult result =
        run_wrapper(node({"/bin/sh", "-c", "echo started; sleep 30"}),
                    "sleep 0.3; echo >&4; echo HUP >&4", 2000ms, "\"$INPUT\"", 5000ms);
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGHUP) + "\n");
}

// The launcher stopped by Ctrl-Z says PAUSE first: no heartbeat for 3 times the silence limit
// does not stop the job; the first line after it (the launcher resumed) brings the limit back.
TEST(RemoteCommand, APauseLiftsTheSilenceLimitUntilTheNextLine) {
    job::NodeCommand command =
        node({"/bin/sh", "-c", "echo started; sleep 2; echo survived; sleep 30"});
    RunResult result =
        run_wrapper(command, "echo PAUSE >&4; sleep 3; echo >&4", 2000ms, "\"$INPUT\"", 1000ms);
    // Alive through the pause (2 s in); then silence again, and the limit stops it.
    EXPECT_EQ(result.out, "started\nsurvived\nstatus=" + std::to_string(128 + SIGALRM) + "\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommand, APausedJobStillStopsAtEndOfInput) {
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started; sleep 30"});
    RunResult result =
        run_wrapper(command, "echo PAUSE >&4; sleep 0.3; exec 4>&-", 2000ms, "\"$INPUT\"", 1000ms);
    EXPECT_EQ(result.out, "started\nstatus=" + std::to_string(128 + SIGTERM) + "\n");
}

TEST(RemoteCommand, StartsNothingWithoutTheWholeInput) {
    // The script cut short, then the end of input: the shell reads all of its block before it
    // runs any of it. (Closed at once, or the wrapper would wait for the rest until the harness
    // gave up.)
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "echo started"}), "", 2000ms,
                                   "\"${INPUT%??}\"", 0ms, false, ExitLine::omitted, true);
    EXPECT_EQ(result.out.find("started"), std::string::npos) << result.out;
    EXPECT_NE(result.out, "status=0\n");
}

// Preflight: one line on stdout says which check failed, in the order of job::PreflightCheck;
// nothing of the wrapper's own (its name, a line number) reaches stderr, and nothing starts.
TEST(RemoteCommandPreflight, AMissingDirectoryIsAnswered) {
    RunResult result = run_preflight(node({"/bin/sh", "-c", "echo started"}, "/nonexistent-dir"));
    EXPECT_EQ(result.out, "\036colossalai-failed cwd\nstatus=125\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommandPreflight, AMissingCommandIsAnswered) {
    RunResult result = run_preflight(node({"colossalai-no-such-torchrun", "train.py"}));
    EXPECT_EQ(result.out, "\036colossalai-failed command\nstatus=125\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommandPreflight, AMasterAddressThatDoesNotResolveIsAnswered) {
    // A getent that finds nothing (no real name is looked up by a unit test).
    test::TempDir dir("colossalai-getent");
    test::write_file(dir.path() / "getent", "#!/bin/sh\nexit 2\n", 0755);
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"});
    command.environment.back().second = dir.path().string() + ":/usr/bin:/bin";
    command.preflight.master_address = "gpu1";
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out, "\036colossalai-failed master gpu1\nstatus=125\n");
}

TEST(RemoteCommandPreflight, ANumericMasterAddressIsNotLookedUp) {
    // getent would fail: a numeric address never reaches it (one fork less per node).
    test::TempDir dir("colossalai-getent");
    test::write_file(dir.path() / "getent", "#!/bin/sh\nexit 2\n", 0755);
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"});
    command.environment.back().second = dir.path().string() + ":/usr/bin:/bin";
    for (const char* address : {"10.1.2.3", "fd00::1", "fe80::1%eth0"}) {
        command.preflight.master_address = address;
        EXPECT_EQ(run_preflight(command).out, std::string(ready) + "status=125\n") << address;
    }
}

TEST(RemoteCommandPreflight, AMissingInterfaceIsAnsweredByName) {
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"});
    command.preflight.interfaces = {"lo", "cai-nosuch0"};
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out, "\036colossalai-failed interface cai-nosuch0\nstatus=125\n");
}

// The node's GPUs, counted by the fake nvidia-smi (tests/fixtures/fake_nvidia_smi.sh) on its
// PATH: too few for what the launch asks is answered with the count and how it was found.
TEST(RemoteCommandPreflight, TooFewGpusAreAnsweredWithTheCount) {
    test::TempDir bin("colossalai-gpus");
    test::install_fake_nvidia_smi(bin.path(), 2);
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"});
    command.environment = {{"PATH", bin.path().string() + ":/usr/bin:/bin"}};
    command.preflight.gpus = job::GpuPerProcess{4};
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out, "\036colossalai-failed gpus 2 smi\nstatus=125\n");
    command.preflight.gpus = job::GpuIndices{{1}};
    RunResult started = run_wrapper(command, "");
    EXPECT_EQ(started.out, "started\nstatus=0\n");
}

// Issue #39: the script torchrun will open, relative to the working directory, as a local node
// reads it; none with -m or no_python (nullopt: the wrapper is passed '').
TEST(RemoteCommandPreflight, AMissingScriptIsAnsweredAndNoneIsChecked) {
    test::TempDir dir("colossalai-script");
    dir.write("train.py", "print(1)\n");
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"}, dir.path().string());
    command.preflight.script = "trian.py";
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out, "\036colossalai-failed script\nstatus=125\n");
    std::optional<ReadyAnswer> answer = parse_ready_line("\036colossalai-failed script", command);
    ASSERT_TRUE(answer && answer->failure);
    EXPECT_EQ(answer->failure->check, job::PreflightCheck::script);
    EXPECT_EQ(answer->failure->subject, "trian.py");
    for (std::optional<std::string> present :
         {std::optional<std::string>("train.py"), std::optional<std::string>(std::nullopt)}) {
        command.preflight.script = present;
        RunResult started = run_wrapper(command, "");
        EXPECT_EQ(started.out, "started\nstatus=0\n") << present.value_or("(none)");
    }
}

// Issue #40: a node whose torchrun runs on a known-broken pair (here a venv of Python 3.11 with
// PyTorch 1.13) sends one notice line before its answer, when the plan asks it to read its pair;
// it fails nothing.
TEST(RemoteCommandPreflight, ABrokenPairIsANoticeBeforeTheAnswer) {
    test::TempDir dir("colossalai-pair");
    dir.write("venv/pyvenv.cfg", "version = 3.11.2\n");
    dir.write("venv/bin/python", "", 0755);
    dir.write("venv/lib/python3.11/site-packages/torch/version.py", "__version__ = '1.13.1'\n");
    dir.write("venv/bin/torchrun", "#!" + (dir.path() / "venv/bin/python").string() + "\nexit 0\n",
              0755);
    job::NodeCommand command = node({(dir.path() / "venv/bin/torchrun").string()});
    RunResult unchecked = run_preflight(command);
    EXPECT_EQ(unchecked.out, std::string(ready) + "status=125\n");
    command.preflight.torch_pair =
        job::TorchPairCheck{job::TorchInterpreter::shebang, "torchrun", run::broken_pair()};
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out,
              "\036colossalai-notice pair 1.13 3.11\n" + std::string(ready) + "status=125\n");
    EXPECT_EQ(result.err, "");
}

TEST(RemoteCommandPreflight, PassingChecksAnswerReadyAndStartNothingWithoutGo) {
    job::NodeCommand command = node({"/bin/sh", "-c", "echo started"});
    command.preflight.master_address = "127.0.0.1"; // numeric: no lookup
    command.preflight.interfaces = {"lo"};
    RunResult result = run_preflight(command);
    EXPECT_EQ(result.out, std::string(ready) + "status=125\n");
    RunResult started = run_wrapper(command, "");
    EXPECT_EQ(started.out, "started\nstatus=0\n");
}

TEST(RemoteCommandPreflight, ReadyLinesAreParsedWithTheirSubject) {
    job::NodeCommand command = node({"torchrun", "train.py"}, "/work/x");
    command.preflight.master_address = "gpu1";
    ASSERT_TRUE(parse_ready_line("\036colossalai-ready", command));
    EXPECT_FALSE(parse_ready_line("\036colossalai-ready", command)->failure);
    auto check = [&](std::string_view line, job::PreflightCheck kind, std::string subject) {
        std::optional<ReadyAnswer> answer = parse_ready_line(line, command);
        ASSERT_TRUE(answer && answer->failure) << line;
        EXPECT_EQ(answer->failure->check, kind) << line;
        EXPECT_EQ(answer->failure->subject, subject) << line;
    };
    check("\036colossalai-failed cwd", job::PreflightCheck::working_directory, "/work/x");
    check("\036colossalai-failed command", job::PreflightCheck::command, "torchrun");
    check("\036colossalai-failed master gpu1", job::PreflightCheck::master_address, "gpu1");
    // The address the node looked up, which an srun task learnt from Slurm.
    check("\036colossalai-failed master node7", job::PreflightCheck::master_address, "node7");
    check("\036colossalai-failed interface ib0", job::PreflightCheck::network_interface, "ib0");
    check("\036colossalai-failed gpus 1 smi", job::PreflightCheck::gpus, "");
    EXPECT_FALSE(parse_ready_line("Welcome to node1", command));
    EXPECT_FALSE(parse_ready_line("\036colossalai-failed other", command));
    EXPECT_FALSE(parse_ready_line("", command));
}

TEST(RemoteCommand, AnExitCodeAbove128IsPassedOnAsIs) {
    // Not turned into a signal: only the launcher knows whether it sent one.
    RunResult result = run_wrapper(node({"/bin/sh", "-c", "exit 130"}), "");
    EXPECT_EQ(result.out, "status=130\n");
}

// The exec request: one line that bash, dash, zsh, ksh, fish, tcsh and csh all pass on
// unchanged, so single-quoted with nothing inside that any of them reads there: no `'`, no
// backslash (fish), no `!` (csh history), no line break (csh).
TEST(LoginCommand, IsOneLineEveryLoginShellPassesOnUnchanged) {
    std::string_view line = login_command();
    EXPECT_EQ(line, "exec /bin/sh -s");
    for (char c : std::string_view("'\"\\!$`*?[{~#;&|<>()\n\r\t")) {
        EXPECT_EQ(line.find(c), std::string_view::npos) << "'" << c << "' in " << line;
    }
}

// Every login shell a user may have runs the program of program_input(), its arguments and
// environment byte for byte (real shells from Debian's packages: .ci/packages, group test), and
// leaves what the launcher writes after the program has answered for the program to read.
TEST(LoginCommand, EveryLoginShellRunsTheProgramWithItsExactArguments) {
    const std::vector<std::string> arguments{
        "train.py", "--match", "step\\d+", "it's",       "a\"b",  "\\", "\\'",   "$HOME",
        "`id`",     "$(id)",   "!1",       "%s",         "~",     "*",  "{a,b}", "#c",
        "sp ace",   "t\tab",   "ünï\xff",  "two\nlines", "\n}\n", "}",  "",      "\r\n"};
    const std::string value = "v'a\"l\\ue $x `id` ! %d ~ * {} # ü";
    test::TempDir dir("colossalai-login-shells"); // the shells' home: no start-up files
    std::string input =
        program_input("printf '%s\\0' \"$@\"; printf '%s\\0' \"$CAI_TEST\"; : > \"$CAI_ANSWERED\"; "
                      "IFS= read -r rest; printf '%s' \"$rest\"",
                      arguments,
                      "export CAI_TEST=" + util::shell_quote(value) + " CAI_ANSWERED=" +
                          util::shell_quote((dir.path() / "answered").string()) + "\n");
    std::string expected;
    for (const std::string& argument : arguments) {
        expected += argument + '\0';
    }
    expected += value + '\0' + "what the program reads";
    // The program's input on a FIFO, as a channel: the script first, then (once the program has
    // answered, as the launcher writes `go`) one more line.
    std::string fifo = util::shell_quote((dir.path() / "stdin").string());
    std::string answered = util::shell_quote((dir.path() / "answered").string());
    for (const char* shell : {"bash", "dash", "zsh", "ksh", "fish", "tcsh", "csh"}) {
        std::filesystem::remove(dir.path() / "answered");
        std::filesystem::remove(dir.path() / "stdin");
        std::string script =
            "command -v " + std::string(shell) + " >/dev/null || exit 127; mkfifo " + fifo +
            " || exit 1; " + shell + " -c " + util::shell_quote(std::string(login_command())) +
            " < " + fifo + " & w=$!; exec 4> " + fifo + "; printf %s \"$INPUT\" >&4; i=0; " +
            "while [ ! -e " + answered + " ] && [ $i -lt 200 ]; do sleep 0.05; " +
            "i=$((i+1)); done; echo 'what the program reads' >&4; exec 4>&-; " + "wait $w";
        test::RunOptions options;
        options.env = std::map<std::string, std::string>{
            {"PATH", "/usr/bin:/bin"}, {"HOME", dir.path().string()}, {"INPUT", input}};
        RunResult result = test::run({"/bin/sh", "-c", script}, options);
        ASSERT_NE(result.exit_code, 127)
            << shell << " is not installed (.ci/packages, group test): " << test::describe(result);
        EXPECT_EQ(result.exit_code, 0) << shell << ": " << test::describe(result);
        EXPECT_TRUE(result.out == expected) << shell << ": " << test::describe(result);
        EXPECT_EQ(result.err, "") << shell;
    }
}

TEST(LoginCommand, AScriptCutShortRunsNothing) {
    test::RunOptions options;
    options.stdin_data = program_input("echo ran", {"a"});
    options.stdin_data.resize(options.stdin_data.size() - 2); // no closing brace
    RunResult result = test::run({"/bin/sh", "-c", std::string(login_command())}, options);
    EXPECT_NE(result.exit_code, 0);
    EXPECT_EQ(result.out, "");
}

TEST(ProgramInput, ArgumentsThenPreludeThenProgramInOneBlock) {
    EXPECT_EQ(program_input("echo \"$1\"", {"a b", "it's", "x"}, "export A=1\n"),
              "{\nset -- 'a b' 'it'\\''s' x\nexport A=1\necho \"$1\"\n}\n");
    // A line break inside a value stays inside its quotes, a `}` line too.
    EXPECT_EQ(program_input("p", {"one\ntwo", "\n}\n"}), "{\nset -- 'one\ntwo' '\n}\n'\np\n}\n");
    EXPECT_EQ(program_input("p", {}), "{\nset --\np\n}\n");
}

TEST(WrapperInput, ArgumentsEnvironmentAndTheWrapper) {
    job::NodeCommand command = node({"torchrun", "--nproc_per_node=2", "train.py"});
    std::string text = wrapper_input(command, 1500ms, 0ms);
    EXPECT_EQ(text, "{\nset -- 15 0 /tmp '' '' 0 '' '' '' torchrun --nproc_per_node=2 train.py\n" +
                        environment_block(command) + std::string(node_wrapper()) + "\n}\n");
    // The silence limit in seconds with one decimal, as coreutils' timeout takes it.
    EXPECT_EQ(wrapper_input(command, 1500ms, 60000ms)
                  .rfind("{\nset -- 15 60.0 /tmp '' '' 0 '' '' '' torch", 0),
              0u);
    EXPECT_EQ(wrapper_input(command, 1500ms, 0ms, ExitLine::printed)
                  .rfind("{\nset -- 15 0 /tmp '' '' 1 '' '' '' torch", 0),
              0u);
    EXPECT_EQ(wrapper_input(command, 1500ms, 2250ms).rfind("{\nset -- 15 2.3 /tmp", 0), 0u);
    // The GPUs the node must have, as job::gpu_check_word writes them.
    command.preflight.gpus = job::GpuIndices{{0, 2}};
    EXPECT_EQ(wrapper_input(command, 1500ms, 0ms)
                  .rfind("{\nset -- 15 0 /tmp '' '' 0 '3!' '' '' torch", 0),
              0u);
    // The script the node reads ('' above: none).
    command.preflight.script = "train.py";
    EXPECT_EQ(wrapper_input(command, 1500ms, 0ms)
                  .rfind("{\nset -- 15 0 /tmp '' '' 0 '3!' train.py '' torch", 0),
              0u);
    // How the node reads its PyTorch pair (job::torch_pair_word; '' above: not at all).
    command.preflight.torch_pair =
        job::TorchPairCheck{job::TorchInterpreter::command, "python", run::broken_pair()};
    EXPECT_EQ(wrapper_input(command, 1500ms, 0ms)
                  .rfind("{\nset -- 15 0 /tmp '' '' 0 '3!' train.py command torch", 0),
              0u);
}

TEST(WrapperInput, TheRendezvousCheckIsTheNodesPartAfterTheEnvironment) {
    job::NodeCommand command = node({"torchrun", "train.py"});
    const job::RendezvousPlan plan{.python = "python3",
                                   .token = "0123456789abcdef",
                                   .listener = 0,
                                   .address = "node1",
                                   .port = 29500,
                                   .nodes = 2};
    auto part = [&](int rank) {
        command.rank = rank;
        std::string text = wrapper_input(command, 1500ms, 0ms, ExitLine::omitted, plan);
        std::string head = "{\nset -- 15 0 /tmp '' '' 0 '' '' '' torchrun train.py\n" +
                           environment_block(command) + "cai_z() { ";
        EXPECT_EQ(text.rfind(head, 0), 0u) << text;
        std::size_t end = text.rfind(std::string(node_wrapper()));
        EXPECT_EQ(text.substr(end), std::string(node_wrapper()) + "\n}\n");
        return text.substr(head.size(), end - head.size());
    };
    // Node 0 listens in the background until the wrapper kills it (no --stdin), for twice the
    // bound; the end line only when it ended by itself.
    std::string listener = part(0);
    EXPECT_EQ(listener.rfind("{ trap 'kill $cai_q; wait $cai_q 2>/dev/null; exit' TERM; "
                             "python3 -I -S -c '",
                             0),
              0u)
        << listener;
    EXPECT_NE(listener.find("' --listen 29500 --token 0123456789abcdef --bound-ms 20000 "
                            "</dev/null & cai_q=$!; wait $cai_q 2>/dev/null; printf "
                            "\"\\036colossalai-rdzv-end\\n\"; } & cai_y=$!; }"),
              std::string::npos)
        << listener;
    // The others connect in the foreground, then say they ended.
    std::string connection = part(1);
    EXPECT_NE(connection.find("' --connect node1 --port 29500 --token 0123456789abcdef "
                              "--bound-ms 10000 </dev/null; printf "
                              "\"\\036colossalai-rdzv-end\\n\"; }"),
              std::string::npos)
        << connection;
}

TEST(RemoteCommand, EnvironmentBlockQuotesEveryValue) {
    EXPECT_EQ(environment_block(node({})),
              "export COLOSSALAI_TEST_VALUE='a '\\''b'\\'' $HOME `id` $(id) \\ ;'\n"
              "export PATH=/usr/bin:/bin\n");
}

TEST(RemoteCommand, ControlLines) {
    EXPECT_EQ(control_line(SIGINT), "INT\n");
    EXPECT_EQ(control_line(SIGTERM), "TERM\n");
    EXPECT_EQ(control_line(SIGKILL), "KILL\n");
    EXPECT_EQ(control_line(SIGHUP), "HUP\n");
    EXPECT_EQ(control_line(SIGCHLD), std::nullopt);
    // Nothing relays these (the launcher receives only the stop signals): no line for them.
    for (int signo : {SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP}) {
        EXPECT_EQ(control_line(signo), std::nullopt) << signo;
    }
}

// The wrapper acts on exactly the control lines the launcher sends: its case is made from the
// same list (exec::signal_policy::relayed_to_nodes).
TEST(RemoteCommand, TheWrapperRelaysExactlyTheControlLinesSent) {
    std::string expected = "case $cai_s in ";
    for (int signo : exec::signal_policy::relayed_to_nodes) {
        std::string line = control_line(signo).value();
        expected += (expected.ends_with(' ') ? "" : "|") + line.substr(0, line.size() - 1);
    }
    expected += ") cai_k \"$cai_s\";; PAUSE) ";
    EXPECT_EQ(expected, "case $cai_s in INT|TERM|HUP|KILL) cai_k \"$cai_s\";; PAUSE) ");
    EXPECT_NE(std::string(node_wrapper()).find(expected), std::string::npos) << node_wrapper();
}

// The reader of a node's stdout: bytes that may begin the exit line wait; the rest is the job's.
std::string read_all(ExitLineReader& reader, const std::vector<std::string>& pieces) {
    std::string job;
    for (const std::string& piece : pieces) {
        job += reader.feed(piece);
    }
    return job;
}

TEST(ExitLineReader, TakesTheExitLineOffTheEndHoweverItIsCut) {
    const std::string out = "loss 0.5\nno newline\036colossalai-exit 255\n";
    for (std::size_t cut = 0; cut <= out.size(); ++cut) {
        SCOPED_TRACE(cut);
        ExitLineReader reader;
        std::string job = read_all(reader, {out.substr(0, cut), out.substr(cut)});
        std::string rest;
        EXPECT_EQ(reader.end(rest), WrapperExit{255});
        EXPECT_EQ(job, "loss 0.5\nno newline");
        EXPECT_EQ(rest, "");
    }
}

TEST(ExitLineReader, TheSilenceLimitsLineHasNoStatus) {
    ExitLineReader reader;
    EXPECT_EQ(reader.feed("x\n\036colossalai-exit ALRM\n"), "x\n");
    std::string rest;
    EXPECT_EQ(reader.end(rest), WrapperExit{std::nullopt});
}

// Without the line at the very end (a connection lost first), everything is the job's.
TEST(ExitLineReader, WhatIsNotTheLastLineIsTheJobs) {
    struct Case {
        std::vector<std::string> pieces;
        std::string job;
    };
    for (const Case& c : {
             Case{{"a\036colossalai-ex"}, "a\036colossalai-ex"},
             Case{{"\036colossalai-exit 3\n", "more"}, "\036colossalai-exit 3\nmore"},
             Case{{"\036colossalai-exit 3\n\036colossalai-exit 4"},
                  "\036colossalai-exit 3\n\036colossalai-exit 4"},
             Case{{"\036colossalai-exit x\n"}, "\036colossalai-exit x\n"},
             Case{{"\036colossalai-exit \n"}, "\036colossalai-exit \n"},
             Case{{"\036other\n", "\036"}, "\036other\n\036"},
             Case{{}, ""},
         }) {
        ExitLineReader reader;
        std::string job = read_all(reader, c.pieces);
        std::string rest;
        EXPECT_EQ(reader.end(rest), std::nullopt) << c.job;
        EXPECT_EQ(job + rest, c.job);
    }
}

} // namespace
} // namespace colossalai::ssh
