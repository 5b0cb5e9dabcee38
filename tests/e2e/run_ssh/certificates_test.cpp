// OpenSSH certificates and marked known_hosts lines against real hosts: a user certificate
// (IDENTITY-cert.pub beside the key, or CertificateFile) logs into an sshd that trusts only the
// user CA; a host key marked @revoked is refused even where it is also listed; a host trusted
// only through @cert-authority gets the one-line error that says what libssh 0.10 lacks and names
// --ssh-client openssh, with which the same host is reached.

#include "launcher.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

namespace colossalai::test {
namespace {

class CertificatesOverSsh : public SharedSshCluster<2> {
protected:
    RunResult launch(const std::string& hosts, const std::filesystem::path& home,
                     const Words& extra = {}) const {
        Words args = {"-H", hosts, "--nproc_per_node", "1"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("train.py");
        return run_fake_job(cluster(), m_fake, args, m_job.path(), home);
    }

    // A new CA key pair NAME, NAME.pub in m_keys.
    std::filesystem::path make_ca(const std::string& name) const {
        std::filesystem::path key = m_keys.path() / name;
        RunResult made =
            run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key.string()});
        EXPECT_EQ(made.exit_code, 0) << made.err;
        return key;
    }

    static void append(const std::filesystem::path& file, const std::string& text) {
        write_file(file, read_file(file) + text);
    }

    static int line_count(const std::filesystem::path& file) {
        std::string text = read_file(file);
        return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    }

    JobDir m_job;
    TempDir m_keys{"colossalai-ssh-ca"};
    FakeTorchrun m_fake;
};

TEST_F(CertificatesOverSsh, AUserCertificateLogsIntoAnSshdThatTrustsOnlyTheUserCa) {
    std::filesystem::path ca = make_ca("user_ca");
    Finally restore([] { cluster().configure_sshd(2, ""); });
    cluster().configure_sshd(2,
                             "TrustedUserCAKeys " + ca.string() + ".pub\nAuthorizedKeysFile none");
    auto home = cluster().make_home("user-cert");
    std::filesystem::path key = home / ".ssh/id_ed25519";

    RunResult plain = launch("node2", home); // the key alone is no longer authorized
    EXPECT_EQ(plain.err, summary_block({"node2: failure (authentication failed for root@node2 "
                                        "(public key, from ssh-agent and the identity files): no "
                                        "key was accepted)"}))
        << describe(plain);

    RunResult signed_key = run({"ssh-keygen", "-q", "-s", ca.string(), "-I", "colossalai-test",
                                "-n", "root", key.string() + ".pub"});
    ASSERT_EQ(signed_key.exit_code, 0) << signed_key.err;
    RunResult beside = launch("node2", home); // id_ed25519-cert.pub beside the key
    EXPECT_EQ(beside.exit_code, 0) << describe(beside);
    EXPECT_EQ(beside.err, summary_block({"node2: success"})) << describe(beside);

    // Elsewhere, named by CertificateFile.
    std::filesystem::create_directories(home / "certs");
    std::filesystem::rename(key.string() + "-cert.pub", home / "certs/mine.pub");
    write_file(home / ".ssh/config",
               "CertificateFile ~/certs/mine.pub\n" + read_file(home / ".ssh/config"));
    RunResult configured = launch("node2", home);
    EXPECT_EQ(configured.exit_code, 0) << describe(configured);
    EXPECT_EQ(configured.err, summary_block({"node2: success"})) << describe(configured);
}

TEST_F(CertificatesOverSsh, ARevokedHostKeyIsRefusedEvenWhenListedAndWithNo) {
    auto home = cluster().make_home("revoked");
    std::filesystem::path known = home / ".ssh/known_hosts";
    append(known, "@revoked node2 " + host_public_key(cluster(), 2) + "\n");
    const std::string reason = "the host key of node2 port 22 is marked @revoked in "
                               "/root/.ssh/known_hosts:" +
                               std::to_string(line_count(known)) + " — refusing to connect";
    for (const Words& extra : {Words{}, Words{"--strict-host-key-checking", "no"}}) {
        RunResult result = launch("node2", home, extra);
        EXPECT_EQ(result.exit_code, 255) << describe(result);
        EXPECT_EQ(result.err, summary_block({"node2: failure (" + reason + ")"}))
            << describe(result);
    }
    RunResult other = launch("node1", home); // the mark names node2's key only
    EXPECT_EQ(other.exit_code, 0) << describe(other);
}

TEST_F(CertificatesOverSsh, AHostTrustedOnlyThroughACertAuthorityNamesTheOpensshClient) {
    std::filesystem::path ca = make_ca("host_ca");
    std::filesystem::path host_key = cluster().dir() / "node2/ssh_host_ed25519_key";
    std::filesystem::path certificate = host_key.string() + "-cert.pub";
    Finally restore([&] {
        cluster().configure_sshd(2, "");
        std::filesystem::remove(certificate);
    });
    RunResult signed_key = run({"ssh-keygen", "-q", "-s", ca.string(), "-h", "-I", "node2", "-n",
                                "node2", host_key.string() + ".pub"});
    ASSERT_EQ(signed_key.exit_code, 0) << signed_key.err;
    cluster().configure_sshd(2, "HostCertificate " + certificate.string());

    ClientHomeOptions only_node1;
    only_node1.known_hosts = std::vector<int>{1};
    auto home = cluster().make_home("cert-authority", only_node1);
    std::filesystem::path known = home / ".ssh/known_hosts";
    append(known, "@cert-authority node*,!login " + public_key_of(ca.string() + ".pub") + "\n");
    const std::string reason =
        "unknown host node2 port 22: known_hosts trusts it through @cert-authority "
        "(/root/.ssh/known_hosts:" +
        std::to_string(line_count(known)) +
        "), but host certificates cannot be checked with libssh 0.10; use --ssh-client openssh, "
        "or after checking its key, trust it with: ssh-keyscan node2 >> ~/.ssh/known_hosts";
    for (const Words& extra : {Words{}, Words{"--strict-host-key-checking", "accept-new"}}) {
        RunResult result = launch("node2", home, extra);
        EXPECT_EQ(result.exit_code, 255) << describe(result);
        EXPECT_EQ(result.err, summary_block({"node2: failure (" + reason + ")"}))
            << describe(result);
    }
    // The ssh program checks the host certificate against the CA: the job runs, and nothing was
    // learnt into known_hosts on the way.
    int lines_before = line_count(known);
    RunResult openssh = launch("node2", home, {"--ssh-client", "openssh"});
    EXPECT_EQ(openssh.exit_code, 0) << describe(openssh);
    EXPECT_EQ(openssh.err, summary_block({"node2: success"})) << describe(openssh);
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{0}) << describe(openssh);
    EXPECT_EQ(line_count(known), lines_before);
}

} // namespace
} // namespace colossalai::test
