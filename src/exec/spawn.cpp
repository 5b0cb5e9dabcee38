#include "colossalai/exec/spawn.hpp"

#include "colossalai/exec/fork.hpp"
#include "colossalai/exec/signals.hpp"
#include "colossalai/util/error.hpp"
#include "colossalai/util/file.hpp"
#include "colossalai/util/strings.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace colossalai::exec {

namespace {

std::vector<char*> c_array(std::vector<std::string>& words) {
    std::vector<char*> array;
    array.reserve(words.size() + 1);
    for (std::string& word : words) {
        array.push_back(word.data());
    }
    array.push_back(nullptr);
    return array;
}

util::Pipe pipe_or_throw() {
    std::optional<util::Pipe> pipe = util::open_pipe(O_CLOEXEC);
    if (!pipe) {
        throw fatal_error("pipe: {}", std::strerror(errno));
    }
    return std::move(*pipe);
}

// Makes `fd` the child's descriptor `target`, inherited by the program it execs. dup2 clears
// close-on-exec on the copy but does nothing when both are the same descriptor (a launcher
// started with that standard stream closed): the flag is cleared by hand then.
void become(int fd, int target) {
    if (fd == target) {
        ::fcntl(fd, F_SETFD, 0);
    } else {
        ::dup2(fd, target);
    }
}

// What the child reports through the close-on-exec pipe when it cannot exec.
struct ChildFailure {
    int step; // 0: chdir, 1: exec
    int error;
};

[[noreturn]] void child_fail(int report_fd, int step) {
    ChildFailure failure{step, errno};
    ssize_t ignored = ::write(report_fd, &failure, sizeof failure);
    (void)ignored;
    ::_exit(127);
}

} // namespace

std::string resolve_executable(const std::string& name,
                               const std::vector<std::string>& environment) {
    std::string path_list = "/usr/local/bin:/usr/bin:/bin";
    for (const std::string& entry : environment) {
        if (util::starts_with(entry, "PATH=")) {
            path_list = entry.substr(5);
        }
    }
    auto found = util::find_in_path(name, path_list);
    return found ? found->string() : std::string();
}

util::Fd open_pidfd(pid_t pid) {
    // glibc 2.36 declares pidfd_open() without C linkage for C++: call the kernel directly.
    // A pidfd is close-on-exec from its creation.
    return util::Fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
}

SpawnedJob spawn_job(const SpawnRequest& request) {
    if (request.argv.empty()) {
        throw fatal_error("empty command");
    }
    std::string program = resolve_executable(request.argv[0], request.environment);
    if (program.empty()) {
        throw fatal_error("{}: command not found", request.argv[0]);
    }
    // Everything the child needs is prepared before fork: after it, only async-signal-safe
    // calls are allowed (other threads may hold locks).
    std::vector<std::string> argv_words = request.argv;
    std::vector<std::string> env_words = request.environment;
    std::vector<char*> argv = c_array(argv_words);
    std::vector<char*> envp = c_array(env_words);
    const char* directory = request.working_directory.c_str();

    util::Pipe out_pipe = pipe_or_throw();
    util::Pipe err_pipe = pipe_or_throw();
    util::Pipe report_pipe = pipe_or_throw();
    std::optional<util::Pipe> in_pipe;
    if (request.stdin_pipe) {
        in_pipe = pipe_or_throw();
    }
    pid_t pid = fork_child(SIGTERM); // told to stop when the launcher dies
    if (pid < 0) {
        throw fatal_error("fork: {}", std::strerror(errno));
    }
    if (pid == 0) {
        // The child owns nothing: it execs or _exits, so no destructor runs here, and its raw
        // dup2 calls place the pipes on the program's standard streams.
        ::setpgid(0, 0);
        reset_signals_for_exec();
        // Close-on-exec like the pipes: only the copies on 0, 1 and 2 reach the program (the
        // descriptor itself used to leak into every node).
        int in_fd = in_pipe ? in_pipe->read.get() : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        become(in_fd, STDIN_FILENO);
        become(out_pipe.write.get(), STDOUT_FILENO);
        become(err_pipe.write.get(), STDERR_FILENO);
        if (::chdir(directory) != 0) {
            child_fail(report_pipe.write.get(), 0);
        }
        ::execve(program.c_str(), argv.data(), envp.data());
        child_fail(report_pipe.write.get(), 1);
    }
    // Also from the parent, so that signalling the group can never race the child's setpgid.
    ::setpgid(pid, pid);
    out_pipe.write.reset();
    err_pipe.write.reset();
    report_pipe.write.reset();
    util::Fd in_fd;
    if (in_pipe) {
        in_pipe->read.reset();
        in_fd = std::move(in_pipe->write);
        ::fcntl(in_fd.get(), F_SETFL, O_NONBLOCK);
    }
    ChildFailure failure{};
    ssize_t n;
    do {
        n = ::read(report_pipe.read.get(), &failure, sizeof failure);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof failure)) {
        // The child exits 127 at once; reap it so no zombie is left.
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        if (failure.step == 0) {
            throw fatal_error("cannot change to directory {}: {}", request.working_directory,
                              std::strerror(failure.error));
        }
        throw fatal_error("cannot execute {}: {}", program, std::strerror(failure.error));
    }
    ::fcntl(out_pipe.read.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(err_pipe.read.get(), F_SETFL, O_NONBLOCK);
    return SpawnedJob{pid, std::move(out_pipe.read), std::move(err_pipe.read), std::move(in_fd)};
}

} // namespace colossalai::exec
