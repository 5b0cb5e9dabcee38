#pragma once

// Running programs and watching processes (/proc), for any test (unit or end-to-end): a child
// with its output collected, one in the background to signal, and the queries that find what a
// test left running.

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace colossalai::test {

// The descriptors of this process that a child inherits (no close-on-exec flag), but 0, 1 and 2
// (any launcher or shell passes those on).
std::set<int> inheritable_fds();

// The lines of an `ls -l /proc/self/fd` listing for descriptors other than 0, 1, 2, ls's own
// directory and those in `allowed`: what a parent leaked into the child that listed them. When
// one of 0, 1 and 2 is missing, says so with the whole listing. Empty: nothing leaked.
std::string leaked_fds(const std::string& listing, const std::set<int>& allowed);

// The current environment as a map, to copy and modify for a child.
std::map<std::string, std::string> current_environment();

struct RunOptions {
    std::optional<std::map<std::string, std::string>> env; // replaces the environment
    std::optional<std::filesystem::path> cwd;
    std::string stdin_data;                   // fed to the child, then EOF
    std::chrono::milliseconds timeout{60000}; // the whole group is killed after it
};

struct RunResult {
    int exit_code = -1; // valid when the child exited
    int signal = 0;     // the signal that killed it
    bool timed_out = false;
    std::string out;
    std::string err;
};

// A readable dump of a result for assertion messages: exit code, signal, both outputs.
std::string describe(const RunResult& result);

// Runs a program (argv[0] a path or a name in PATH) and collects its output.
RunResult run(const std::vector<std::string>& argv, const RunOptions& options = {});

// A started child whose output goes to files; for tests that signal a running launcher.
class Background {
public:
    Background(const std::vector<std::string>& argv, const RunOptions& options,
               const std::filesystem::path& out_file, const std::filesystem::path& err_file);
    // The same with stdout and stderr on descriptors the test holds (a pipe, a terminal); the
    // caller keeps them and closes them.
    Background(const std::vector<std::string>& argv, const RunOptions& options, int out_fd,
               int err_fd);
    ~Background(); // SIGKILLs and reaps the child if it still runs
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

    pid_t pid() const { return m_pid; }
    void signal(int signo) const;
    // Waits for the child to end; nullopt at the timeout. Returns the raw wait status, and in
    // `usage` what wait4 reports: the child's resource use, ru_maxrss the largest peak RSS of the
    // child and of the descendants it waited for.
    std::optional<int> wait(std::chrono::milliseconds timeout, struct rusage* usage = nullptr);

private:
    pid_t m_pid = -1;
    bool m_reaped = false;
};

// The exit code of a launcher (or any command) run in the background; -1 with a test failure
// when it still runs after `timeout` or died of a signal. `usage` as Background::wait.
int exit_code_of(Background& launcher, std::chrono::milliseconds timeout,
                 struct rusage* usage = nullptr);

// Polls `predicate` every 20 ms until it is true or `timeout` passes; returns its last value.
template <typename Predicate>
bool eventually(Predicate predicate, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (predicate()) {
            return true;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        struct timespec pause {
            0, 20 * 1000 * 1000
        };
        nanosleep(&pause, nullptr);
    }
}

// True when process `pid` exists and is not a zombie.
bool process_alive(pid_t pid);

// Waits for the child `pid` (again when a signal interrupts) and returns its wait status.
int wait_status(pid_t pid);

// True when process `pid` is stopped (SIGSTOP, SIGTSTP: state T).
bool process_stopped(pid_t pid);

// True when process `pid` ignores signal `signo` (SigIgn in /proc/PID/status).
bool signal_ignored(pid_t pid, int signo);

// PIDs of live processes whose command line contains `marker`.
std::vector<pid_t> processes_with_marker(const std::string& marker);

// PIDs of the live (not zombie) members of process group `pgid`.
std::vector<pid_t> process_group_members(pid_t pgid);

// PIDs of live processes (other than this one) whose environment holds the entry `name_value`
// (`NAME=value`, exactly): a marker that every descendant inherits, whatever its command line.
std::vector<pid_t> processes_with_environment(const std::string& name_value);

} // namespace colossalai::test
