// What the launcher tells about connecting. The `connecting 7/10 (1 failed)` line: drawn on a
// terminal while more than 8 hosts connect and erased before any node output; never written to
// a pipe (the launcher's stderr is a pseudo-terminal here, from openpty, its stdout a file).
// And COLOSSALAI_TIMING=1: where the time went, per phase, after the summary.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

struct TerminalRun {
    int exit_code = -1;
    std::string terminal; // all the launcher wrote to its stderr, as the terminal received it
    std::string out;
};

// Runs `argv` with `env` in `dir`, stderr on a new pseudo-terminal, stdout into a file of `dir`.
TerminalRun run_with_terminal_stderr(const std::vector<std::string>& argv, const Env& env,
                                     const std::filesystem::path& dir) {
    TerminalRun run;
    int master = -1;
    int slave = -1;
    if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
        ADD_FAILURE() << "openpty failed";
        return run;
    }
    std::filesystem::path out_file = dir / "stdout";
    std::vector<std::string> env_text;
    for (const auto& [name, value] : env) {
        env_text.push_back(name + "=" + value);
    }
    std::vector<char*> args, envp;
    for (const std::string& word : argv) {
        args.push_back(const_cast<char*>(word.c_str()));
    }
    args.push_back(nullptr);
    for (std::string& entry : env_text) {
        envp.push_back(entry.data());
    }
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        int out = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = ::open("/dev/null", O_RDONLY);
        ::dup2(in, 0);
        ::dup2(out, 1);
        ::dup2(slave, 2);
        if (::chdir(dir.c_str()) != 0) {
            ::_exit(126);
        }
        ::execve(args[0], args.data(), envp.data());
        ::_exit(127);
    }
    ::close(slave);
    auto deadline = std::chrono::steady_clock::now() + 120s;
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd fd{master, POLLIN, 0};
        if (::poll(&fd, 1, 1000) <= 0) {
            continue;
        }
        ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0) {
            break; // EIO: every writer of the terminal is gone
        }
        run.terminal.append(buffer, static_cast<size_t>(n));
    }
    int status = 0;
    // The terminal reads EIO once the launcher's descriptors are closed, a moment before the
    // launcher is a zombie that waitpid can collect.
    bool ended = eventually([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, 20s);
    if (!ended) {
        ADD_FAILURE() << "the launcher did not end";
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
    }
    ::close(master);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = read_file(out_file);
    return run;
}

class ConnectProgressOverSsh : public SharedSshCluster<1, 10> {
protected:
    std::string host_list() const {
        std::string list;
        for (const std::string& host : cluster().aliases()) {
            list += (list.empty() ? "" : ",") + host;
        }
        return list;
    }
    Words args() const { return {"-H", host_list(), "--nproc_per_node", "1", "train.py"}; }
};

TEST_F(ConnectProgressOverSsh, OnATerminalTheLineIsErasedBeforeAnyNodeOutput) {
    FakeTorchrun fake;
    fake.behave("echo \"rank $rank err\" >&2\n");
    JobDir dir("colossalai-progress");
    Words argv = {binary().string(), "run"};
    for (const std::string& word : args()) {
        argv.push_back(word);
    }
    TerminalRun run = run_with_terminal_stderr(
        cluster().client_command(argv), launcher_environment(cluster(), fake.bin()), dir.path());
    ASSERT_EQ(run.exit_code, 0) << run.terminal;
    const std::string& t = run.terminal;
    size_t first_output = t.find(": rank ");
    ASSERT_NE(first_output, std::string::npos) << t;
    size_t last_line = t.rfind("connecting ", first_output);
    ASSERT_NE(last_line, std::string::npos) << t;
    EXPECT_NE(t.find("connecting 0/10"), std::string::npos) << t;
    // The last status line drawn was erased (back to the line's start, erase to its end) before
    // the first node line, and none came after it.
    size_t erased = t.find("\r\x1b[K", last_line);
    EXPECT_LT(erased, first_output) << t;
    EXPECT_EQ(t.find("connecting", first_output), std::string::npos) << t;
    for (int rank = 0; rank < 10; ++rank) {
        EXPECT_NE(t.find(": rank " + std::to_string(rank) + " err"), std::string::npos) << t;
    }
}

TEST_F(ConnectProgressOverSsh, NeverInAPipe) {
    FakeTorchrun fake;
    fake.behave("echo \"rank $rank err\" >&2\n");
    LaunchOptions options;
    options.env = launcher_environment(cluster(), fake.bin());
    RunResult result = run_launcher(cluster(), args(), options);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.err.find("connecting"), std::string::npos) << describe(result);
    EXPECT_EQ(result.err.find('\r'), std::string::npos) << describe(result);
}

// Over either --ssh-client (the parameter).
class ConnectTimingOverSsh : public ConnectProgressOverSsh,
                             public ::testing::WithParamInterface<std::string> {};

TEST_P(ConnectTimingOverSsh, TimingReportsEveryPhaseOfEveryHost) {
    FakeTorchrun fake;
    fake.behave("echo \"rank $rank err\" >&2\n");
    LaunchOptions options;
    options.env = launcher_environment(cluster(), fake.bin(), {{"COLOSSALAI_TIMING", "1"}});
    Words client_args = {"--ssh-client", GetParam()};
    for (const std::string& word : args()) {
        client_args.push_back(word);
    }
    RunResult result = run_launcher(cluster(), client_args, options);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    std::string err = result.err;
    EXPECT_NE(err.find("colossalai: timing of 10 SSH hosts"), std::string::npos) << err;
    for (const char* phase : {"wait for a worker", "connect + key exchange", "host key check",
                              "authentication", "channel + preflight", "wait for all hosts",
                              "first output", "rest of the output", "exit status", "close"}) {
        size_t line = err.find(std::string("  ") + phase);
        ASSERT_NE(line, std::string::npos) << phase << "\n" << err;
        EXPECT_NE(err.substr(line, err.find('\n', line) - line).find("(10 hosts)"),
                  std::string::npos)
            << err;
    }
    EXPECT_NE(err.find("colossalai: peak RSS "), std::string::npos) << err;
    // Without the variable: not a word of it.
    options.env = launcher_environment(cluster(), fake.bin());
    result = run_launcher(cluster(), args(), options);
    EXPECT_EQ(result.err.find("timing"), std::string::npos) << describe(result);
}

INSTANTIATE_TEST_SUITE_P(Clients, ConnectTimingOverSsh, ::testing::Values("libssh", "openssh"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

} // namespace
} // namespace colossalai::test
