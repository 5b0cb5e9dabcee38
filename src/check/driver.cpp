#include "colossalai/check/driver.hpp"

#include "driver_child.hpp"

#include "colossalai/exec/capture.hpp"
#include "colossalai/exec/fork.hpp"
#include "colossalai/exec/wait.hpp"
#include "colossalai/util/integer.hpp"
#include "colossalai/util/strings.hpp"

#include <fmt/core.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace colossalai::check {

namespace {

using Clock = std::chrono::steady_clock;

// How long a killed probe is waited for. A driver call can sleep uninterruptibly in the kernel
// (a GPU that fell off the bus), where even SIGKILL waits for it to return: the check does not
// wait with it. The child stays killed; when the check exits, init reaps it.
constexpr std::chrono::seconds killed_probe_wait{2};

// Kills the probe and reaps it within killed_probe_wait.
void kill_probe(pid_t pid) {
    ::kill(pid, SIGKILL);
    exec::wait_child(pid, Clock::now() + killed_probe_wait);
}

} // namespace

std::optional<std::string> format_driver_version(int version) {
    if (version <= 0) {
        return std::nullopt;
    }
    return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

bool is_stub_library(std::string_view path) {
    for (const auto& part : std::filesystem::path(path).parent_path()) {
        if (part == "stubs") {
            return true;
        }
    }
    return false;
}

DriverFacts parse_driver_answer(std::string_view answer) {
    DriverFacts facts;
    std::vector<Gpu> gpus;
    for (std::string_view line : util::split_lines(answer)) {
        size_t space = line.find(' ');
        std::string_view key = line.substr(0, space);
        std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
        if (key == "library") {
            facts.library = std::string(value);
        } else if (key == "stub") {
            DriverFacts stub;
            stub.warnings.push_back(
                fmt::format("{} is the CUDA stub library, not a driver (is a 'stubs' directory in "
                            "LD_LIBRARY_PATH?); driver values are N/A",
                            facts.library.value_or("libcuda.so.1")));
            return stub;
        } else if (key == "version") {
            if (auto number = util::parse_integer<int>(value)) {
                facts.cuda_version = format_driver_version(*number);
            }
        } else if (key == "error") {
            facts.warnings.push_back(fmt::format("CUDA driver: {}", value));
        } else if (key == "gpu") {
            size_t gap = value.find(' ');
            if (gap == std::string_view::npos) {
                continue;
            }
            std::string_view cc = value.substr(0, gap);
            gpus.push_back(Gpu{std::string(value.substr(gap + 1)),
                               cc == "-" ? std::nullopt : std::optional<std::string>(cc)});
        } else if (key == "end") {
            facts.gpus = std::move(gpus);
            gpus.clear();
        }
    }
    return facts;
}

DriverProbe::DriverProbe(const std::string& library) : m_library(library) {
    std::optional<util::Pipe> answer = util::open_pipe(O_CLOEXEC);
    if (!answer) {
        return;
    }
    // A driver hung in cuInit must not outlive a check that was killed.
    m_pid = exec::fork_child(SIGKILL);
    if (m_pid == 0) {
        // The child never returns (run_driver_probe_child exits), so the owners here are never
        // destroyed in it: raw close and dup2. Without the read end, a write after the check
        // stopped reading fails (EPIPE) instead of blocking forever.
        ::close(answer->read.get());
        // A driver may print or read: keep it off the report's streams.
        int null_fd = ::open("/dev/null", O_RDWR);
        if (null_fd >= 0) {
            ::dup2(null_fd, STDIN_FILENO);
            ::dup2(null_fd, STDOUT_FILENO);
            ::dup2(null_fd, STDERR_FILENO);
        }
        run_driver_probe_child(m_library.c_str(), answer->write.get());
    }
    if (m_pid > 0) {
        m_fd = std::move(answer->read);
    }
}

DriverProbe::~DriverProbe() {
    m_fd.reset();
    if (m_pid > 0) {
        kill_probe(m_pid);
    }
}

DriverFacts DriverProbe::finish(std::chrono::milliseconds timeout) {
    if (m_pid <= 0 || !m_fd) {
        DriverFacts facts;
        facts.warnings.push_back("CUDA driver: cannot start the driver probe");
        return facts;
    }
    std::string answer;
    bool timed_out = false;
    const Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        // A stop signal ends the check here too (the child dies with it: PR_SET_PDEATHSIG).
        pollfd watched[2] = {{m_fd.get(), POLLIN, 0}, {exec::stop_signal_fd(), POLLIN, 0}};
        int ready = ::poll(watched, 2, static_cast<int>(std::max<long long>(0, left.count())));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            timed_out = true;
            break;
        }
        if ((watched[1].revents & POLLIN) != 0) {
            exec::act_on_stop_signal();
        }
        if (watched[0].revents == 0) {
            continue;
        }
        char buffer[4096];
        ssize_t n = ::read(m_fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0 || answer.size() > 64 * 1024) {
            break;
        }
        answer.append(buffer, static_cast<size_t>(n));
    }
    m_fd.reset();
    // The child may close the answer's pipe and still hang (a driver that closes descriptors it
    // does not own): the same deadline holds for its end.
    exec::ChildWait end =
        timed_out ? exec::ChildWait{} : exec::wait_child_acting_on_stop(m_pid, deadline);
    if (end.state == exec::ChildWait::State::running) {
        timed_out = true;
        kill_probe(m_pid);
    }
    m_pid = -1;
    const int status = end.status;

    DriverFacts facts = parse_driver_answer(answer);
    std::string library = facts.library.value_or(m_library);
    if (timed_out) {
        facts.warnings.push_back(
            fmt::format("CUDA driver {}: no answer within {} s, probe killed; GPUs are N/A",
                        library, static_cast<double>(timeout.count()) / 1000.0));
    } else if (WIFSIGNALED(status)) {
        facts.warnings.push_back(fmt::format("CUDA driver {}: the probe died of signal {} ({})",
                                             library, WTERMSIG(status),
                                             ::strsignal(WTERMSIG(status))));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        // The probe itself always ends with status 0: the driver called exit().
        facts.warnings.push_back(fmt::format("CUDA driver {}: the probe exited with status {}",
                                             library, WEXITSTATUS(status)));
    }
    return facts;
}

} // namespace colossalai::check
