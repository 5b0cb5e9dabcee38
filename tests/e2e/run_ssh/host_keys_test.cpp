// StrictHostKeyChecking as OpenSSH users know it, against real hosts: accept-new learns every
// new host once, in OpenSSH's format (hashed with HashKnownHosts), even when many are learned at
// once, and is silent afterwards; `no` connects to a host whose key changed, with a loud
// warning every time; the command line wins over ~/.ssh/config; `ask` is `yes` with a hint; a
// known_hosts line too long for libssh hides no host.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

class HostKeysOverSsh : public SharedSshCluster<8> {
protected:
    RunResult launch(const std::string& hosts, const Words& extra,
                     const std::filesystem::path& home) const {
        Words args = {"-H", hosts, "--nproc_per_node", "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("train.py");
        return run_fake_job(cluster(), m_fake, args, m_job.path(), home);
    }

    static std::string all_hosts() {
        std::string hosts;
        for (int k = 1; k <= cluster().hosts(); ++k) {
            hosts += (k > 1 ? "," : "") + cluster().host(k);
        }
        return hosts;
    }

    static std::string host_key(int k) { return host_public_key(cluster(), k); }
    // OpenSSH's SHA256 fingerprint of a public key file.
    static std::string fingerprint(const std::filesystem::path& pub) {
        RunResult result = run({"ssh-keygen", "-l", "-E", "sha256", "-f", pub.string()});
        std::istringstream in(result.out);
        std::string bits, print;
        in >> bits >> print;
        return print;
    }

    static void prepend_to_config(const std::filesystem::path& home, const std::string& text) {
        std::filesystem::path config = home / ".ssh/config";
        write_file(config, text + read_file(config));
    }

    static std::string added(int k) {
        return "colossalai: warning: permanently added 'node" + std::to_string(k) +
               "' (ED25519) to the list of known hosts (/root/.ssh/known_hosts)";
    }

    static Words successes(int hosts) {
        Words lines;
        for (int k = 1; k <= hosts; ++k) {
            lines.push_back("node" + std::to_string(k) + ": success");
        }
        return lines;
    }

    JobDir m_job;
    FakeTorchrun m_fake;
};

TEST_F(HostKeysOverSsh, AcceptNewLearnsEightNewHostsAtOnceThenIsSilent) {
    ClientHomeOptions none;
    none.known_hosts = std::vector<int>{};
    auto home = cluster().make_home("accept-new", none);
    // Debian's /etc/ssh/ssh_config says `HashKnownHosts yes`: the user's config comes first.
    prepend_to_config(home, "HashKnownHosts no\n");
    RunResult first = launch(all_hosts(), {"--strict-host-key-checking", "accept-new"}, home);
    ASSERT_EQ(first.exit_code, 0) << describe(first);
    Words expected_warnings, expected_lines;
    for (int k = 1; k <= 8; ++k) {
        expected_warnings.push_back(added(k));
        expected_lines.push_back("node" + std::to_string(k) + " " + host_key(k));
    }
    EXPECT_EQ(sorted(lines_starting_with(first.err, "colossalai: warning:")),
              sorted(expected_warnings))
        << describe(first);
    // Whole lines, each host once, nothing else: appended under a lock.
    std::string known = read_file(home / ".ssh/known_hosts");
    EXPECT_EQ(sorted(lines_of(known)), sorted(expected_lines)) << known;

    RunResult second = launch(all_hosts(), {"--strict-host-key-checking", "accept-new"}, home);
    EXPECT_EQ(second.exit_code, 0) << describe(second);
    EXPECT_EQ(second.err, summary_block(successes(8))) << describe(second);
    EXPECT_EQ(read_file(home / ".ssh/known_hosts"), known);
}

TEST_F(HostKeysOverSsh, AcceptNewFromTheConfigHashesWithHashKnownHosts) {
    ClientHomeOptions only_node1;
    only_node1.known_hosts = std::vector<int>{1};
    auto home = cluster().make_home("hashed", only_node1);
    prepend_to_config(home, "Host node*\n  StrictHostKeyChecking accept-new\n"
                            "  HashKnownHosts yes\n");
    std::string before = read_file(home / ".ssh/known_hosts");
    RunResult first = launch("node1,node2", {}, home);
    ASSERT_EQ(first.exit_code, 0) << describe(first);
    EXPECT_EQ(lines_starting_with(first.err, "colossalai:"), Words{added(2)}) << describe(first);
    std::string known = read_file(home / ".ssh/known_hosts");
    ASSERT_EQ(known.substr(0, before.size()), before);
    Words learned = lines_of(known.substr(before.size()));
    ASSERT_EQ(learned.size(), 1u) << known;
    EXPECT_EQ(learned[0].substr(0, 3), "|1|") << learned[0];
    EXPECT_EQ(learned[0].substr(learned[0].find(' ') + 1), host_key(2));
    // OpenSSH finds the hashed name.
    RunResult found =
        run({"ssh-keygen", "-F", "node2", "-f", (home / ".ssh/known_hosts").string()});
    EXPECT_EQ(found.exit_code, 0) << found.out << found.err;

    RunResult second = launch("node1,node2", {}, home);
    EXPECT_EQ(second.err, summary_block(successes(2))) << describe(second);
}

TEST_F(HostKeysOverSsh, NoConnectsToAChangedHostWithALoudWarningEveryTime) {
    ClientHomeOptions changed;
    changed.changed_host_keys = {2};
    auto home = cluster().make_home("changed-no", changed);
    std::string known = read_file(home / ".ssh/known_hosts");
    Words known_lines = lines_of(known);
    auto node2 = std::find_if(known_lines.begin(), known_lines.end(),
                              [](const std::string& line) { return line.rfind("node2 ", 0) == 0; });
    ASSERT_NE(node2, known_lines.end()) << known;
    long line_of_node2 = node2 - known_lines.begin() + 1;
    const std::string warning =
        "colossalai: warning: REMOTE HOST IDENTIFICATION HAS CHANGED for node2 port 22! The "
        "ED25519 key it sent has fingerprint " +
        fingerprint(cluster().dir() / "node2/ssh_host_ed25519_key.pub") + "; known_hosts holds " +
        fingerprint(cluster().spare_host_key().string() + ".pub") +
        " (/root/.ssh/known_hosts:" + std::to_string(line_of_node2) + ")" +
        ". Someone could be eavesdropping (man-in-the-middle attack), or the host key has just "
        "been changed. Connecting anyway (StrictHostKeyChecking no); if the change is "
        "expected, remove the old key with: ssh-keygen -R node2";
    for (int run = 0; run < 2; ++run) {
        RunResult result = launch("node1,node2", {"--strict-host-key-checking", "no"}, home);
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        EXPECT_EQ(result.err, warning + "\n" + summary_block(successes(2))) << describe(result);
    }
    EXPECT_EQ(read_file(home / ".ssh/known_hosts"), known); // a changed key is never replaced
}

TEST_F(HostKeysOverSsh, TheCommandLineWinsAndAskIsYesWithAHint) {
    ClientHomeOptions only_node1;
    only_node1.known_hosts = std::vector<int>{1};
    auto home = cluster().make_home("ask", only_node1);
    prepend_to_config(home, "StrictHostKeyChecking accept-new\n");
    for (const std::string mode : {"yes", "ask"}) {
        RunResult result = launch("node2", {"--strict-host-key-checking", mode}, home);
        std::string hint =
            mode == "ask" ? "; StrictHostKeyChecking ask is taken as yes: a launcher cannot ask"
                          : "";
        EXPECT_EQ(result.exit_code, 255) << describe(result);
        EXPECT_EQ(result.err, summary_block({"node2: failure (unknown host node2 port 22 (not in "
                                             "known_hosts" +
                                             hint +
                                             "); after checking its key, trust it with: "
                                             "ssh-keyscan node2 >> ~/.ssh/known_hosts)"}))
            << describe(result);
    }
}

// Some sites list a thousand names sharing one key on one known_hosts line; libssh 0.10 stops
// reading the file at a line of 8 KiB or more. The hosts on that line and after it are known
// all the same, over either client.
TEST_F(HostKeysOverSsh, HostsOnAndAfterALineLongerThanLibsshReadsAreKnown) {
    ClientHomeOptions none;
    none.known_hosts = std::vector<int>{};
    auto home = cluster().make_home("long-line", none);
    std::string names;
    for (int k = 1; k <= 1200; ++k) {
        names += "compute" + std::to_string(k) + ",";
    }
    std::string long_line = names + "node1 " + host_key(1) + "\n";
    ASSERT_GT(long_line.size(), 8192u);
    write_file(home / ".ssh/known_hosts", long_line + "node2 " + host_key(2) + "\n");
    for (const std::string client : {"libssh", "openssh"}) {
        RunResult result = launch(
            "node1,node2", {"--ssh-client", client, "--strict-host-key-checking", "yes"}, home);
        EXPECT_EQ(result.exit_code, 0) << client << "\n" << describe(result);
        EXPECT_EQ(result.err, summary_block(successes(2))) << client << "\n" << describe(result);
    }
}

} // namespace
} // namespace colossalai::test
