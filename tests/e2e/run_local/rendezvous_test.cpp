// `colossalai run` with several local nodes (`--host 127.0.0.1,127.0.0.2`): the rendezvous check
// (job/rendezvous_check.hpp) runs before any job starts. Node 0 listens on the master port as
// torch's store will and node 1 connects to the master address: a port that a live socket holds
// stops the launch with one line naming the port and its process, exit 254, nothing started; a
// master address that does not resolve is named by the node that tried it;
// --no-rendezvous-check starts the jobs without it; a check that passes starts them.

#include "fixture.hpp"
#include "lines.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace colossalai::test {
namespace {

// A port of this machine that this test process listens on (IPv4 wildcard) until it ends: `port`
// (with SO_REUSEADDR, as torch's store binds it), or one the kernel picks.
class ListeningSocket {
public:
    explicit ListeningSocket(int port = 0) {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int on = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        socklen_t size = sizeof address;
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
            ::listen(m_fd, 8) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
            ADD_FAILURE() << "cannot listen on a port of this machine";
        }
        m_port = ntohs(address.sin_port);
    }
    ~ListeningSocket() { ::close(m_fd); }
    ListeningSocket(const ListeningSocket&) = delete;
    ListeningSocket& operator=(const ListeningSocket&) = delete;
    int port() const { return m_port; }
    std::string port_text() const { return std::to_string(m_port); }

private:
    int m_fd = -1;
    int m_port = 0;
};

// A port free now (the kernel's choice, released at once).
std::string unused_port() {
    ListeningSocket socket;
    return socket.port_text();
}

using RunLocalRendezvous = RunLocal;

TEST_F(RunLocalRendezvous, APortHeldOnTheMasterStartsNothingAndNamesItsProcess) {
    ListeningSocket held;
    RunResult result = run_colossalai_run({"--host", "127.0.0.1,127.0.0.2", "--nproc_per_node", "1",
                                           "--master_port", held.port_text(), "train.py"});
    EXPECT_EQ(result.exit_code, 254) << result.err;
    EXPECT_EQ(result.out, "");
    const std::string reason = "port " + held.port_text() +
                               " is in use on the master, by process " +
                               std::to_string(::getpid()) + " (";
    EXPECT_TRUE(
        result.err.starts_with("====== Training on All Nodes =====\n127.0.0.1: failure (" + reason))
        << result.err;
    EXPECT_TRUE(result.err.ends_with("an earlier job still running? (stop it, or give "
                                     "--master_port another port))\n127.0.0.2: failure (not "
                                     "started)\n"))
        << result.err;
    EXPECT_FALSE(torchrun_called());
}

TEST_F(RunLocalRendezvous, AMasterAddressThatDoesNotResolveIsNamedByTheNodeThatTriedIt) {
    std::string port = unused_port();
    // The launcher and its nodes in a network namespace of their own, its loopback up: the name
    // fails to resolve there, and no query leaves for the machine's name server.
    RunOptions options;
    options.cwd = job();
    options.env = launcher_env();
    RunResult result =
        run({"/usr/bin/unshare", "--net", "--", "/bin/sh", "-c",
             "/usr/sbin/ip link set lo up && exec \"$0\" \"$@\"", binary().string(), "run",
             "--host", "127.0.0.1,127.0.0.2", "--nproc_per_node", "1", "--master_addr",
             "gpu0.colossalai-test.invalid", "--master_port", port, "train.py"},
            options);
    EXPECT_EQ(result.exit_code, 254) << result.err;
    EXPECT_TRUE(result.err.starts_with(
        "====== Training on All Nodes =====\n127.0.0.1: failure (not started)\n127.0.0.2: "
        "failure ('gpu0.colossalai-test.invalid' port " +
        port + ": the name does not resolve on this node ("))
        << result.err;
    EXPECT_FALSE(torchrun_called());
}

TEST_F(RunLocalRendezvous, NoRendezvousCheckStartsTheJobsAnyway) {
    ListeningSocket held; // the fake torchrun listens on nothing
    RunResult result = run_colossalai_run({"--host", "127.0.0.1,127.0.0.2", "--nproc_per_node", "1",
                                           "--master_port", held.port_text(),
                                           "--no-rendezvous-check", "train.py"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::filesystem::exists(recorded(0, "argv")));
    EXPECT_TRUE(std::filesystem::exists(recorded(1, "argv")));
}

TEST_F(RunLocalRendezvous, APassingCheckStartsEveryNodeAndLeavesNothingBehind) {
    std::string port = unused_port();
    RunResult result = run_colossalai_run({"--host", "127.0.0.1,127.0.0.2", "--nproc_per_node", "1",
                                           "--master_port", port, "train.py"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, summary_block({"127.0.0.1: success", "127.0.0.2: success"}));
    EXPECT_TRUE(std::filesystem::exists(recorded(1, "argv")));
    // The listener is gone: its port is free for the job's own store.
    ListeningSocket again(std::stoi(port));
    EXPECT_EQ(again.port_text(), port);
}

TEST_F(RunLocalRendezvous, TheDryRunSaysItWillRun) {
    RunResult result = run_colossalai_run(
        {"--dry-run", "--host", "127.0.0.1,127.0.0.2", "--nproc_per_node", "1", "train.py"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(has_line(result.out, "rendezvous check: node 0 listens on port 29500, the others "
                                     "connect to 127.0.0.1 port 29500 before the jobs start "
                                     "(--no-rendezvous-check: none)"))
        << result.out;
    RunResult off =
        run_colossalai_run({"--dry-run", "--no-rendezvous-check", "--host", "127.0.0.1,127.0.0.2",
                            "--nproc_per_node", "1", "train.py"});
    EXPECT_EQ(off.out.find("rendezvous check"), std::string::npos) << off.out;
}

} // namespace
} // namespace colossalai::test
