// Processes as /proc shows them: the tests' way to find what a launch left behind.

#include "files.hpp"
#include "lines.hpp"
#include "process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace colossalai::test {

namespace fs = std::filesystem;

namespace {

// The fields of /proc/PID/stat after the command name: state, ppid, pgrp, ... (empty if gone).
std::vector<std::string> stat_fields(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string content;
    if (!std::getline(stat, content)) {
        return {};
    }
    size_t paren = content.rfind(')');
    if (paren == std::string::npos) {
        return {};
    }
    std::istringstream rest(content.substr(paren + 1));
    std::vector<std::string> fields;
    std::string field;
    while (rest >> field) {
        fields.push_back(field);
    }
    return fields;
}

std::vector<pid_t> all_pids() {
    std::vector<pid_t> pids;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        std::string name = entry.path().filename().string();
        if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
            pids.push_back(std::stoi(name));
        }
    }
    return pids;
}

} // namespace

int wait_status(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

bool process_alive(pid_t pid) {
    std::vector<std::string> fields = stat_fields(pid);
    return !fields.empty() && fields[0] != "Z";
}

bool process_stopped(pid_t pid) {
    std::vector<std::string> fields = stat_fields(pid);
    return !fields.empty() && fields[0] == "T";
}

bool signal_ignored(pid_t pid, int signo) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("SigIgn:", 0) == 0) {
            unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
            return ((mask >> (signo - 1)) & 1ULL) != 0;
        }
    }
    return false;
}

std::vector<pid_t> processes_with_marker(const std::string& marker) {
    std::vector<pid_t> found;
    for (pid_t pid : all_pids()) {
        if (pid == ::getpid()) {
            continue;
        }
        std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
        if (cmdline.find(marker) != std::string::npos && process_alive(pid)) {
            found.push_back(pid);
        }
    }
    return found;
}

std::vector<pid_t> process_group_members(pid_t pgid) {
    std::vector<pid_t> found;
    for (pid_t pid : all_pids()) {
        std::vector<std::string> fields = stat_fields(pid);
        if (fields.size() > 2 && fields[0] != "Z" && fields[2] == std::to_string(pgid)) {
            found.push_back(pid);
        }
    }
    return found;
}

std::vector<pid_t> processes_with_environment(const std::string& name_value) {
    std::vector<pid_t> found;
    const std::string entry = name_value + '\0';
    for (pid_t pid : all_pids()) {
        if (pid == ::getpid()) {
            continue;
        }
        std::string environment = '\0' + read_file("/proc/" + std::to_string(pid) + "/environ");
        if (environment.find('\0' + entry) != std::string::npos && process_alive(pid)) {
            found.push_back(pid);
        }
    }
    return found;
}

std::set<int> inheritable_fds() {
    std::set<int> fds;
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
        int fd = std::stoi(entry.path().filename().string());
        int flags = ::fcntl(fd, F_GETFD);
        if (fd > 2 && flags >= 0 && (flags & FD_CLOEXEC) == 0) {
            fds.insert(fd);
        }
    }
    return fds;
}

std::string leaked_fds(const std::string& listing, const std::set<int>& allowed) {
    std::string leaked;
    int standard = 0;
    for (const std::string& line : lines_of(listing)) {
        size_t arrow = line.find(" -> ");
        if (arrow == std::string::npos) {
            continue; // "total 0"
        }
        std::string left = line.substr(0, arrow);
        int fd = std::stoi(left.substr(left.rfind(' ') + 1));
        std::string target = line.substr(arrow + 4);
        bool own = target.rfind("/proc/", 0) == 0 && target.ends_with("/fd");
        standard += fd <= 2 ? 1 : 0;
        if (fd > 2 && !own && allowed.count(fd) == 0) {
            leaked += line + "\n";
        }
    }
    return standard == 3 ? leaked : "missing standard descriptors:\n" + listing;
}

} // namespace colossalai::test
