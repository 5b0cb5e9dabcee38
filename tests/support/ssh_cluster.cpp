#include "ssh_cluster.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace colossalai::test {

namespace fs = std::filesystem;

namespace {

// KEY=VALUE lines of the cluster.env that `cluster.sh up` writes.
std::map<std::string, std::string> read_env_file(const fs::path& path) {
    std::map<std::string, std::string> values;
    std::istringstream lines(read_file(path));
    std::string line;
    while (std::getline(lines, line)) {
        size_t equals = line.find('=');
        if (equals != std::string::npos) {
            values[line.substr(0, equals)] = line.substr(equals + 1);
        }
    }
    return values;
}

std::string joined(const std::vector<int>& hosts) {
    std::string text;
    for (int k : hosts) {
        text += (text.empty() ? "" : ",") + std::to_string(k);
    }
    return text;
}

const char* key_name(ClientKey key) {
    switch (key) {
    case ClientKey::Authorized:
        return "authorized";
    case ClientKey::Wrong:
        return "wrong";
    case ClientKey::None:
        return "none";
    }
    return "none";
}

// Same namespace: same nsfs inode on the same device (what `ip netns pids` compares).
bool same_file(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

fs::path cluster_script() {
    return fixtures_dir().parent_path() / "e2e/ssh/cluster.sh";
}

bool can_run_ssh_cluster() {
    return ::geteuid() == 0;
}

SshCluster::SshCluster(int hosts, int aliases)
    : m_dir("colossalai-ssh-cluster"), m_hosts(hosts), m_aliases(aliases) {
    script({"up", dir().string(), std::to_string(hosts), "--aliases", std::to_string(aliases),
            "--owner", std::to_string(::getpid())});
    auto env = read_env_file(dir() / "cluster.env");
    m_net = env["CLUSTER_NET"];
    m_prefix = env["CLUSTER_PREFIX"];
    if (m_net.empty() || m_prefix.empty()) {
        // Should not happen after a successful `up`; tear down rather than leak.
        run({cluster_script().string(), "down", dir().string()});
        throw std::runtime_error("cluster.sh up wrote no usable " +
                                 (dir() / "cluster.env").string());
    }
}

SshCluster::~SshCluster() {
    try {
        RunResult result = run({cluster_script().string(), "down", dir().string()});
        if (result.exit_code != 0) {
            std::fprintf(stderr, "SshCluster: cluster.sh down failed: %s\n", result.err.c_str());
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "SshCluster: teardown failed: %s\n", error.what());
    }
}

std::string SshCluster::script(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{cluster_script().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult result = run(argv);
    if (result.exit_code != 0) {
        throw std::runtime_error("cluster.sh " + args.at(0) + " failed (exit " +
                                 std::to_string(result.exit_code) + "): " + result.err);
    }
    return result.out;
}

void SshCluster::check_host(int k) const {
    if (k < 1 || k > m_hosts) {
        throw std::out_of_range("no host " + std::to_string(k) + " in a cluster of " +
                                std::to_string(m_hosts));
    }
}

std::string SshCluster::host(int k) const {
    check_host(k);
    return "node" + std::to_string(k);
}

std::string SshCluster::address(int k) const {
    check_host(k);
    return m_net + "." + std::to_string(k);
}

std::string SshCluster::client_address() const {
    return m_net + ".254";
}

std::vector<std::string> SshCluster::aliases() const {
    std::vector<std::string> names;
    for (int a = 1; a <= m_aliases; ++a) {
        char name[16];
        std::snprintf(name, sizeof name, "a%03d", a);
        names.emplace_back(name);
    }
    return names;
}

std::string SshCluster::network_namespace(int k) const {
    if (k == 0) {
        return m_prefix + "-client";
    }
    check_host(k);
    return m_prefix + "-node" + std::to_string(k);
}

std::vector<std::string> SshCluster::network_namespaces() const {
    std::vector<std::string> names;
    for (int k = 1; k <= m_hosts; ++k) {
        names.push_back(network_namespace(k));
    }
    names.push_back(network_namespace(0));
    names.push_back(m_prefix + "-sw");
    return names;
}

fs::path SshCluster::sshd_log(int k) const {
    return dir() / host(k) / "sshd.log";
}

fs::path SshCluster::make_home(const std::string& name, const ClientHomeOptions& options) const {
    std::vector<std::string> args{"home", dir().string(), name, "--key", key_name(options.key)};
    if (options.known_hosts) {
        args.insert(args.end(),
                    {"--known", options.known_hosts->empty() ? std::string("none")
                                                             : joined(*options.known_hosts)});
    }
    if (!options.changed_host_keys.empty()) {
        args.insert(args.end(), {"--changed", joined(options.changed_host_keys)});
    }
    std::string out = script(args);
    while (!out.empty() && out.back() == '\n') {
        out.pop_back();
    }
    return out;
}

std::vector<std::string> SshCluster::client_command(const std::vector<std::string>& argv,
                                                    const fs::path& home) const {
    std::vector<std::string> command{cluster_script().string(), "exec", dir().string()};
    if (!home.empty()) {
        command.insert(command.end(), {"--home", home.string()});
    }
    command.push_back("--");
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

std::map<std::string, std::string> SshCluster::client_environment() const {
    std::map<std::string, std::string> env{
        {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
        {"HOME", home().string()},
        {"USER", "root"},
        {"LOGNAME", "root"},
        {"LANG", "C.UTF-8"}};
#if defined(COLOSSALAI_TEST_SANITIZED)
    // LeakSanitizer's exit-time tracer itself crashed now and then ("Tracer caught signal 11",
    // 2 of some 60 SSH launches in one CI run, not in 60 test runs after) in a launcher that
    // had loaded libssh and OpenSSL with dlopen. Memory errors are still reported.
    env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=1:detect_stack_use_after_return=1";
#endif
    return env;
}

RunOptions SshCluster::client_options() const {
    RunOptions options;
    options.env = client_environment();
    return options;
}

RunResult SshCluster::run_on_client(const std::vector<std::string>& argv, RunOptions options,
                                    const fs::path& home) const {
    if (!options.env) {
        options.env = client_environment();
    }
    return run(client_command(argv, home), options);
}

std::vector<std::string> SshCluster::host_command(int k,
                                                  const std::vector<std::string>& argv) const {
    std::vector<std::string> command{cluster_script().string(), "host-exec", dir().string(),
                                     std::to_string(k)};
    check_host(k);
    command.insert(command.end(), argv.begin(), argv.end());
    return command;
}

RunResult SshCluster::exec_on_host(int k, const std::vector<std::string>& argv,
                                   const RunOptions& options) const {
    return run(host_command(k, argv), options);
}

pid_t SshCluster::sshd_pid(int k) const {
    std::string text = read_file(dir() / host(k) / "sshd.pid");
    pid_t pid = text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
    if (pid <= 0 || !process_alive(pid)) {
        return 0;
    }
    for (pid_t on_host : pids_on_host(k)) {
        if (on_host == pid) {
            return pid;
        }
    }
    return 0;
}

std::vector<pid_t> SshCluster::pids_on_host(int k) const {
    struct stat target {};
    if (::stat(("/run/netns/" + network_namespace(k)).c_str(), &target) != 0) {
        return {};
    }
    std::vector<pid_t> found;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
            continue;
        }
        struct stat ns {};
        if (::stat((entry.path() / "ns/net").c_str(), &ns) == 0 && same_file(ns, target)) {
            pid_t pid = std::stoi(name);
            if (process_alive(pid)) {
                found.push_back(pid);
            }
        }
    }
    return found;
}

std::vector<pid_t> SshCluster::processes_with_marker_on_host(int k,
                                                             const std::string& marker) const {
    std::vector<pid_t> found;
    for (pid_t pid : pids_on_host(k)) {
        std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
        if (cmdline.find(marker) != std::string::npos) {
            found.push_back(pid);
        }
    }
    return found;
}

std::vector<std::pair<int, pid_t>>
SshCluster::processes_with_marker(const std::string& marker) const {
    std::vector<std::pair<int, pid_t>> found;
    for (int host = 0; host <= hosts(); ++host) {
        for (pid_t pid : processes_with_marker_on_host(host, marker)) {
            found.emplace_back(host, pid);
        }
    }
    return found;
}

void SshCluster::expect_no_process_with_marker(const std::string& marker,
                                               std::chrono::milliseconds timeout) const {
    if (eventually([&] { return processes_with_marker(marker).empty(); }, timeout)) {
        return;
    }
    for (const auto& [k, pid] : processes_with_marker(marker)) {
        std::string cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        ADD_FAILURE() << "left on " << (k == 0 ? std::string("the client") : host(k)) << ": " << pid
                      << " " << cmdline;
    }
}

void SshCluster::stop_sshd(int k) const {
    check_host(k);
    script({"stop-sshd", dir().string(), std::to_string(k)});
}

void SshCluster::start_sshd(int k) const {
    check_host(k);
    script({"start-sshd", dir().string(), std::to_string(k)});
}

void SshCluster::replace_host_key(int k) const {
    check_host(k);
    script({"host-key", dir().string(), std::to_string(k), "spare"});
}

void SshCluster::restore_host_key(int k) const {
    check_host(k);
    script({"host-key", dir().string(), std::to_string(k), "own"});
}

void SshCluster::configure_sshd(int k, const std::string& lines) const {
    check_host(k);
    script({"sshd-extra", dir().string(), std::to_string(k), lines});
}

void SshCluster::kill_sshd_sessions(int k) const {
    signal_sshd_sessions(k, "KILL");
}

void SshCluster::signal_sshd_sessions(int k, const std::string& signal) const {
    check_host(k);
    script({"kill-sessions", dir().string(), std::to_string(k), signal});
}

void SshCluster::set_link(int k, bool up) const {
    check_host(k);
    script({"link", dir().string(), std::to_string(k), up ? "up" : "down"});
}

std::vector<std::string> openssh_argv(const std::string& host, const std::string& command) {
    return {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", host, command};
}

} // namespace colossalai::test
