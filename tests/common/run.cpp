#include "process.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace colossalai::test {

namespace fs = std::filesystem;

std::map<std::string, std::string> current_environment() {
    std::map<std::string, std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        std::string text(*entry);
        size_t equals = text.find('=');
        if (equals != std::string::npos) {
            env[text.substr(0, equals)] = text.substr(equals + 1);
        }
    }
    return env;
}

namespace {

struct ChildSpec {
    std::vector<std::string> argv;
    std::vector<std::string> env;
    bool has_env = false;
};

ChildSpec make_spec(const std::vector<std::string>& argv, const RunOptions& options) {
    ChildSpec spec;
    spec.argv = argv;
    if (options.env) {
        spec.has_env = true;
        for (const auto& [name, value] : *options.env) {
            spec.env.push_back(name + "=" + value);
        }
    }
    return spec;
}

std::vector<char*> c_array(std::vector<std::string>& words) {
    std::vector<char*> array;
    for (std::string& word : words) {
        array.push_back(word.data());
    }
    array.push_back(nullptr);
    return array;
}

// fork + exec with the given stdin/stdout/stderr fds; the child gets its own process group.
pid_t spawn(ChildSpec& spec, const RunOptions& options, int in_fd, int out_fd, int err_fd) {
    std::vector<char*> argv = c_array(spec.argv);
    std::vector<char*> env = c_array(spec.env);
    std::string cwd = options.cwd ? options.cwd->string() : std::string();
    pid_t pid = ::fork();
    if (pid < 0) {
        throw std::runtime_error("fork failed");
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) {
            ::signal(signo, SIG_DFL);
        }
        ::dup2(in_fd, 0);
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
            ::_exit(126);
        }
        if (spec.has_env) {
            environ = env.data();
        }
        ::execvp(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

void decode_status(int status, RunResult& result) {
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
    }
}

} // namespace

std::string describe(const RunResult& result) {
    return "exit code " + std::to_string(result.exit_code) + ", signal " +
           std::to_string(result.signal) + (result.timed_out ? " (timed out)" : "") +
           "\n--- stdout:\n" + result.out + "--- stderr:\n" + result.err;
}

RunResult run(const std::vector<std::string>& argv, const RunOptions& options) {
    ChildSpec spec = make_spec(argv, options);
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
        ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe failed");
    }
    pid_t pid = spawn(spec, options, in_pipe[0], out_pipe[1], err_pipe[1]);
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    // Feed stdin in full first (tests send little), then collect both outputs.
    ::signal(SIGPIPE, SIG_IGN);
    size_t written = 0;
    while (written < options.stdin_data.size()) {
        ssize_t n = ::write(in_pipe[1], options.stdin_data.data() + written,
                            options.stdin_data.size() - written);
        if (n <= 0) {
            break;
        }
        written += static_cast<size_t>(n);
    }
    ::close(in_pipe[1]);

    RunResult result;
    auto deadline = std::chrono::steady_clock::now() + options.timeout;
    int fds[2] = {out_pipe[0], err_pipe[0]};
    std::string* sinks[2] = {&result.out, &result.err};
    int open_count = 2;
    while (open_count > 0) {
        pollfd pfds[2];
        int n = 0;
        int index[2];
        for (int i = 0; i < 2; ++i) {
            if (fds[i] >= 0) {
                pfds[n] = {fds[i], POLLIN, 0};
                index[n++] = i;
            }
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(-pid, SIGKILL);
            break;
        }
        int ready = ::poll(pfds, static_cast<nfds_t>(n), static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        for (int k = 0; k < n; ++k) {
            if (pfds[k].revents == 0) {
                continue;
            }
            char buffer[65536];
            ssize_t got = ::read(pfds[k].fd, buffer, sizeof buffer);
            if (got > 0) {
                sinks[index[k]]->append(buffer, static_cast<size_t>(got));
            } else if (got == 0 || errno != EINTR) {
                ::close(fds[index[k]]);
                fds[index[k]] = -1;
                --open_count;
            }
        }
    }
    for (int fd : fds) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    decode_status(status, result);
    return result;
}

Background::Background(const std::vector<std::string>& argv, const RunOptions& options,
                       const fs::path& out_file, const fs::path& err_file) {
    ChildSpec spec = make_spec(argv, options);
    int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out_fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err_fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    m_pid = spawn(spec, options, in_fd, out_fd, err_fd);
    ::close(in_fd);
    ::close(out_fd);
    ::close(err_fd);
}

Background::Background(const std::vector<std::string>& argv, const RunOptions& options, int out_fd,
                       int err_fd) {
    ChildSpec spec = make_spec(argv, options);
    int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    m_pid = spawn(spec, options, in_fd, out_fd, err_fd);
    ::close(in_fd);
}

Background::~Background() {
    if (m_pid > 0 && !m_reaped) {
        ::kill(m_pid, SIGKILL);
        int status = 0;
        ::waitpid(m_pid, &status, 0);
    }
}

void Background::signal(int signo) const {
    ::kill(m_pid, signo);
}

std::optional<int> Background::wait(std::chrono::milliseconds timeout, struct rusage* usage) {
    int status = 0;
    struct rusage ignored {};
    bool done = eventually(
        [&] {
            pid_t r = ::wait4(m_pid, &status, WNOHANG, usage != nullptr ? usage : &ignored);
            return r == m_pid;
        },
        timeout);
    if (!done) {
        return std::nullopt;
    }
    m_reaped = true;
    return status;
}

int exit_code_of(Background& launcher, std::chrono::milliseconds timeout, struct rusage* usage) {
    std::optional<int> status = launcher.wait(timeout, usage);
    if (!status) {
        ADD_FAILURE() << "the launcher still runs";
        return -1;
    }
    if (!WIFEXITED(*status)) {
        ADD_FAILURE() << "the launcher died of signal " << WTERMSIG(*status);
        return -1;
    }
    return WEXITSTATUS(*status);
}

} // namespace colossalai::test
