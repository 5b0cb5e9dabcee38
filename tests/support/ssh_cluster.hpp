#pragma once

// Real test hosts for the SSH end-to-end tests: node1..nodeN, each a network namespace with its
// own address, host name and sshd, and a client namespace to run the launcher in. The work is
// done by tests/e2e/ssh/cluster.sh; docs/design.md ("## Test hosts") explains the choices.
//
// Hosts are numbered as their names: host k is "node<k>", k = 1..hosts(). Node rank r of a job
// over all hosts runs on host r + 1.

#include "support.hpp"

#include <gtest/gtest.h>

#include <sys/types.h>

#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colossalai::test {

// The script that brings clusters up and down.
std::filesystem::path cluster_script();

// True when this process may create namespaces and run sshd (root).
bool can_run_ssh_cluster();

// The identity a client home carries.
enum class ClientKey { Authorized, Wrong, None };

struct ClientHomeOptions {
    ClientKey key = ClientKey::Authorized;
    std::optional<std::vector<int>> known_hosts; // hosts in known_hosts; nullopt: every host
    std::vector<int> changed_host_keys; // hosts whose entry carries another key (host reinstalled)
};

// OpenSSH's ssh running `command` on `host`, never prompting (for a client command).
std::vector<std::string> openssh_argv(const std::string& host, const std::string& command);

class SshCluster {
public:
    // Brings up node1..node<hosts> and the ssh-config aliases a001..a<aliases>, all leading to
    // node1 (a fraction of a second for two hosts); throws std::runtime_error
    // with the script's message when it cannot. This process owns it: if it dies without
    // tearing down, the next bring-up (or `cluster.sh cleanup-stale`) removes the remains.
    explicit SshCluster(int hosts = 2, int aliases = 0);
    // Kills every process in the cluster's namespaces (sshd, sessions, jobs, clients) by PID and
    // deletes the namespaces; never throws.
    ~SshCluster();
    SshCluster(const SshCluster&) = delete;
    SshCluster& operator=(const SshCluster&) = delete;

    int hosts() const { return m_hosts; }
    std::string host(int k) const;    // "node<k>"
    std::string address(int k) const; // its address on the cluster's private /24
    std::string client_address() const;
    std::vector<std::string> aliases() const; // "a001", ...
    // The network namespace of host k, or of the client for k = 0 (for `ip netns` checks).
    std::string network_namespace(int k) const;
    std::vector<std::string> network_namespaces() const; // hosts, client, switch

    const std::filesystem::path& dir() const { return m_dir.path(); }
    // The client's home: .ssh/{id_ed25519,known_hosts,config}. Bound over /root in the client
    // namespace, because OpenSSH and libssh take the home from the passwd entry, not from $HOME.
    std::filesystem::path home() const { return dir() / "home"; }
    std::filesystem::path client_key() const { return home() / ".ssh/id_ed25519"; }
    std::filesystem::path known_hosts() const { return home() / ".ssh/known_hosts"; }
    std::filesystem::path ssh_config() const { return home() / ".ssh/config"; }
    std::filesystem::path wrong_key() const { return dir() / "keys/wrong_ed25519"; }
    std::filesystem::path spare_host_key() const { return dir() / "keys/spare_host_ed25519_key"; }
    std::filesystem::path sshd_log(int k) const;

    // A variant of home() under dir()/homes/NAME, for tests that need another identity or another
    // known_hosts without disturbing the shared one.
    std::filesystem::path make_home(const std::string& name,
                                    const ClientHomeOptions& options = {}) const;

    // argv that runs `argv` in the client namespace with HOME (and /root) = `home`, default
    // home(); the rest of the environment is the caller's (see client_environment()). The
    // command keeps the PID of the child that run()/Background start, so signals reach it.
    std::vector<std::string> client_command(const std::vector<std::string>& argv,
                                            const std::filesystem::path& home = {}) const;
    // A plain environment for client commands: system PATH, HOME, USER, LANG; and RunOptions
    // carrying it.
    std::map<std::string, std::string> client_environment() const;
    RunOptions client_options() const;
    RunResult run_on_client(const std::vector<std::string>& argv, RunOptions options = {},
                            const std::filesystem::path& home = {}) const;

    // argv that runs `argv` on host k as its sshd's sessions see it (network, host name, mounts).
    std::vector<std::string> host_command(int k, const std::vector<std::string>& argv) const;
    RunResult exec_on_host(int k, const std::vector<std::string>& argv,
                           const RunOptions& options = {}) const;

    // PID of host k's sshd listener; 0 when it does not run.
    pid_t sshd_pid(int k) const;
    // Live processes in host k's network namespace (k = 0: the client's).
    std::vector<pid_t> pids_on_host(int k) const;
    // Those of them whose command line contains `marker`.
    std::vector<pid_t> processes_with_marker_on_host(int k, const std::string& marker) const;
    // (host, pid) of those on the client (0) and every host.
    std::vector<std::pair<int, pid_t>> processes_with_marker(const std::string& marker) const;
    // Expects none of them within `timeout`, polling; a test failure lists what is left.
    void expect_no_process_with_marker(const std::string& marker,
                                       std::chrono::milliseconds timeout) const;

    // Stops host k's sshd listener (new connections are refused; open sessions go on) / starts
    // it again and waits until it listens.
    void stop_sshd(int k) const;
    void start_sshd(int k) const;
    // Restarts host k's sshd with spare_host_key(), so that the client's known_hosts entry no
    // longer matches; restore_host_key() puts its own key back.
    void replace_host_key(int k) const;
    void restore_host_key(int k) const;
    // Restarts host k's sshd (own host key) with `lines` of sshd_config first, where they win
    // (TrustedUserCAKeys, AuthorizedKeysFile none, HostCertificate ...); "" restores it.
    void configure_sshd(int k, const std::string& lines) const;
    // SIGKILLs host k's per-connection sshd processes but not the listener: every open
    // connection to host k drops, the remote commands stay behind as orphans.
    void kill_sshd_sessions(int k) const;
    // Sends SIGNAL ("STOP", "CONT" or "KILL") to the same processes: STOP freezes every open
    // connection to host k while its kernel still acknowledges TCP.
    void signal_sshd_sessions(int k, const std::string& signal) const;

    // Unplugs (false) or plugs back (true) host k's network cable at the switch: while
    // unplugged its packets vanish without a reset, so open connections hang until a keepalive
    // or timeout notices and new ones time out. The host's processes keep running.
    void set_link(int k, bool up) const;

private:
    std::string script(const std::vector<std::string>& args) const; // throws on failure
    void check_host(int k) const;

    TempDir m_dir;
    int m_hosts = 0;
    int m_aliases = 0;
    std::string m_net;    // "10.211.<id>"
    std::string m_prefix; // namespace names are <prefix>-node<k>, -client, -sw
};

// Base of a test suite whose tests share one cluster of HOSTS hosts (and ALIASES aliases):
// brought up before the first test, torn down after the last. Tests skip when not root and fail
// when the bring-up failed. Tests that disturb a host (stop_sshd, replace_host_key...) must
// restore it before they end, even on failure.
template <int Hosts, int Aliases = 0>
class SharedSshCluster : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!can_run_ssh_cluster()) {
            return;
        }
        try {
            s_cluster = std::make_unique<SshCluster>(Hosts, Aliases);
        } catch (const std::exception& error) {
            s_error = error.what();
        }
    }
    static void TearDownTestSuite() { s_cluster.reset(); }

    void SetUp() override {
        if (!can_run_ssh_cluster()) {
            GTEST_SKIP() << "needs root (network namespaces, sshd)";
        }
        ASSERT_NE(s_cluster, nullptr) << "cluster bring-up failed: " << s_error;
    }

    static const SshCluster& cluster() { return *s_cluster; }

private:
    static inline std::unique_ptr<SshCluster> s_cluster;
    static inline std::string s_error;
};

// For tests that change the cluster (a host key, an sshd, a link): runs `undo` when the scope ends,
// also after a failed ASSERT; a failing undo fails the test.
template <typename Undo>
class Finally {
public:
    explicit Finally(Undo undo) : m_undo(std::move(undo)) {}
    ~Finally() {
        try {
            m_undo();
        } catch (const std::exception& error) {
            ADD_FAILURE() << "restoring the cluster failed: " << error.what();
        }
    }
    Finally(const Finally&) = delete;
    Finally& operator=(const Finally&) = delete;

private:
    Undo m_undo;
};

} // namespace colossalai::test
