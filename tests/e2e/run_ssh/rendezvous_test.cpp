// The rendezvous check over SSH (job/rendezvous_check.hpp): after the barrier, node 0's wrapper
// listens on the master port and every other node connects to the master address as it resolves
// it, before any job starts. Each cause of a rendezvous hang is one line naming the node, what it
// tried and what happened, exit 254, nothing started anywhere, within seconds: the port dropped
// by a firewall on the master (nftables in node1's network namespace), the port held there by
// another process (named with its PID), a node's own name on 127.0.1.1 and the master's name
// leading one node to another machine (each node's own /etc/hosts, tests/e2e/ssh/cluster.sh),
// the master's name not resolving on one node (the preflight's getent names it first), the
// master's name leading one node to another host that listens on the port. A port in TIME_WAIT
// on the master is not in use. A node's own name on loopback with gloo's interface given is one
// warning. A launch that mixes this machine and remote hosts checks the local node too.
// --no-rendezvous-check starts the jobs as before.

#include "launcher.hpp"
#include "rendezvous_faults.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

constexpr int port = 29431;
const std::string port_text = std::to_string(port);

class RendezvousOverSsh : public SharedSshCluster<3> {
protected:
    void SetUp() override {
        SharedSshCluster<3>::SetUp();
        m_fake.behave("exit 0\n");
    }

    RunResult launch(const Words& extra = {},
                     const std::string& hosts = "node1,node2,node3") const {
        Words args = {"-H",           hosts, "--nproc_per_node", "1",
                      "--kill-grace", "2",   "--master_port",    port_text};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back("train.py");
        LaunchOptions options;
        options.env = launcher_environment(cluster(), m_fake.bin());
        options.cwd = m_job.path();
        options.timeout = 90s;
        return run_launcher(cluster(), args, options);
    }

    // Exit 254, the summary's lines as given (in node order), no job started anywhere.
    void expect_refused(const RunResult& result, const Words& lines) const {
        EXPECT_EQ(result.exit_code, 254) << describe(result);
        EXPECT_EQ(result.out, "") << describe(result);
        EXPECT_NE(result.err.find(summary_block(lines)), std::string::npos) << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
    }

    // `k`'s /etc/hosts (its own copy) becomes `text` until the scope ends.
    auto hosts_of(int k, const std::string& text) const {
        std::filesystem::path file = cluster().dir() / ("node" + std::to_string(k)) / "hosts";
        std::string before = read_file(file);
        write_file(file, text);
        return Finally([file, before] { write_file(file, before); });
    }

    // The cluster's names, as every host has them, with `first` before them (which wins).
    std::string hosts_with(const std::string& first, const std::string& left_out = {}) const {
        std::string text = first + "127.0.0.1 localhost\n";
        for (int k = 1; k <= 3; ++k) {
            if (cluster().host(k) != left_out) {
                text += cluster().address(k) + " " + cluster().host(k) + "\n";
            }
        }
        return text;
    }

    static std::string not_started(const std::string& host) {
        return host + ": failure (not started, stopped by the launcher)";
    }

    std::string target(int k) const {
        return "'node1' (" + cluster().address(k) + ") port " + port_text;
    }

    JobDir m_job; // train.py: each node's preflight reads the script first
    FakeTorchrun m_fake;
};

TEST_F(RendezvousOverSsh, APortDroppedOnTheMasterIsNamedByEveryOtherNode) {
    RunResult added = cluster().exec_on_host(1, drop_port(port_text));
    ASSERT_EQ(added.exit_code, 0) << describe(added);
    Finally undo([] { cluster().exec_on_host(1, undo_drop_port()); });
    auto started = std::chrono::steady_clock::now();
    RunResult result = launch();
    std::string dropped = target(1) +
                          ": no connection within the check's time (a firewall or a security "
                          "group dropping the port between this node and the master?)";
    expect_refused(result, {not_started("node1"), "node2: failure (" + dropped + ")",
                            "node3: failure (" + dropped + ")"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);

    // Without the check, the (fake) jobs start.
    RunResult unchecked = launch({"--no-rendezvous-check"});
    EXPECT_EQ(unchecked.exit_code, 0) << describe(unchecked);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1, 2}));
}

TEST_F(RendezvousOverSsh, APortHeldOnTheMasterIsNamedWithItsProcess) {
    for (const char* client : {"libssh", "openssh"}) {
        SCOPED_TRACE(client);
        TempDir state;
        Background holder(
            cluster().host_command(1, port_holder(port_text, state.path() / "listening")), {},
            state.path() / "out", state.path() / "err");
        ASSERT_TRUE(
            eventually([&] { return std::filesystem::exists(state.path() / "listening"); }, 20s))
            << read_file(state.path() / "err");
        RunResult result = launch({"--ssh-client", client});
        EXPECT_EQ(result.exit_code, 254) << describe(result);
        std::string named = "node1: failure (port " + port_text +
                            " is in use on the master, by process " + std::to_string(holder.pid()) +
                            " (";
        std::size_t at = result.err.find(named);
        ASSERT_NE(at, std::string::npos) << describe(result);
        // Its command line, cut at 200 bytes.
        EXPECT_NE(result.err.find("python3 -c import socket, sys, time s = socket.socket()", at),
                  std::string::npos)
            << describe(result);
        EXPECT_NE(result.err.find(not_started("node2")), std::string::npos) << describe(result);
        EXPECT_NE(result.err.find(not_started("node3")), std::string::npos) << describe(result);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
    }
}

TEST_F(RendezvousOverSsh, ANodesOwnNameOnLoopbackIsNamed) {
    auto restore = hosts_of(2, hosts_with("127.0.1.1 node2\n"));
    RunResult result = launch();
    expect_refused(result,
                   {not_started("node1"),
                    "node2: failure (the node's own name 'node2' resolves to the loopback "
                    "address 127.0.1.1 on the node, which gloo would advertise to the other "
                    "nodes (map the name to the node's own address in /etc/hosts, or give "
                    "--network-interface))",
                    not_started("node3")});
}

TEST_F(RendezvousOverSsh, AMasterNameThatLeadsOneNodeElsewhereIsNamed) {
    // node3 takes node1 for node2's address, where nothing listens on the port.
    auto swap = hosts_of(3, hosts_with(cluster().address(2) + " node1\n", "node1"));
    RunResult result = launch();
    expect_refused(result, {not_started("node1"), not_started("node2"),
                            "node3: failure (" + target(2) +
                                ": connection refused (nothing listens there: does the name lead "
                                "this node to another machine than the master?))"});
}

TEST_F(RendezvousOverSsh, AMasterNameThatLeadsOneNodeToAnotherListeningHostIsNamed) {
    // node3 takes node1 for node2, where another process listens on the master port (accepting,
    // saying nothing, as an earlier job's store): connected, but not this launch's master.
    TempDir state;
    Background holder(cluster().host_command(2, port_holder(port_text, state.path() / "listening")),
                      {}, state.path() / "out", state.path() / "err");
    ASSERT_TRUE(
        eventually([&] { return std::filesystem::exists(state.path() / "listening"); }, 20s))
        << read_file(state.path() / "err");
    auto swap = hosts_of(3, hosts_with(cluster().address(2) + " node1\n", "node1"));
    RunResult result = launch();
    expect_refused(result, {not_started("node1"), not_started("node2"),
                            "node3: failure (" + target(2) +
                                " answered, but not as this launch's master: the name leads this "
                                "node to another machine that listens on that port (set "
                                "--master_addr to an address that reaches the master from every "
                                "node))"});
}

TEST_F(RendezvousOverSsh, AMasterNameThatDoesNotResolveOnOneNodeIsNamed) {
    auto swap = hosts_of(2, hosts_with("", "node1"));
    RunResult result = launch();
    EXPECT_EQ(result.exit_code, 254) << describe(result);
    // The preflight's own check of the master's name comes first and names it.
    EXPECT_NE(result.err.find("node2: failure (cannot resolve master address 'node1'"),
              std::string::npos)
        << describe(result);
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

TEST_F(RendezvousOverSsh, APortInTimeWaitOnTheMasterIsNotInUse) {
    // The master's side closes first: its end of the connection stays in TIME_WAIT on the port.
    // Its listener sets SO_REUSEADDR as torch's store does (Linux lets a bind take over a
    // TIME_WAIT port only when both sockets set it).
    RunResult closed =
        cluster().exec_on_host(1, {"python3", "-c",
                                   "import socket\n"
                                   "l = socket.socket()\n"
                                   "l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                                   "l.bind(('0.0.0.0', " +
                                       port_text +
                                       "))\n"
                                       "l.listen()\n"
                                       "c = socket.create_connection(('127.0.0.1', " +
                                       port_text +
                                       "))\n"
                                       "a = l.accept()[0]\n"
                                       "a.close()\n"
                                       "c.recv(1)\n"
                                       "c.close()\n"
                                       "l.close()\n"});
    ASSERT_EQ(closed.exit_code, 0) << describe(closed);
    RunResult waiting = cluster().exec_on_host(
        1, {"ss", "-Htan", "state", "time-wait", "sport", "= :" + port_text});
    ASSERT_NE(waiting.out, "") << describe(waiting);
    // The control: a listener without SO_REUSEADDR cannot bind the port now, so a check that
    // did not set it would fail this launch.
    RunResult plain = cluster().exec_on_host(
        1,
        {"python3", "-c", "import socket\nsocket.socket().bind(('0.0.0.0', " + port_text + "))\n"});
    EXPECT_NE(plain.exit_code, 0) << describe(plain);
    EXPECT_NE(plain.err.find("Address already in use"), std::string::npos) << describe(plain);
    RunResult result = launch();
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1, 2}));
}

// A node whose own name is on loopback while gloo is told its interface: one warning line
// naming the node, and the jobs start.
TEST_F(RendezvousOverSsh, ANodesOwnNameOnLoopbackWithGloosInterfaceIsOneWarning) {
    auto restore = hosts_of(2, hosts_with("127.0.1.1 node2\n"));
    RunResult result = launch({"--network-interface", "eth0"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(lines_starting_with(result.err, "colossalai: warning: "),
              (Words{"colossalai: warning: node2: the node's own name 'node2' resolves to the "
                     "loopback address 127.0.1.1 on the node (gloo uses the interface it was "
                     "given instead)"}))
        << describe(result);
}

// This machine with remote hosts: the local node takes its part in the same turns, as the
// master (its listener a child of the launcher, in the client's namespace) or as a node that
// connects; a failure in its part is named like a remote node's.
TEST_F(RendezvousOverSsh, ALaunchWithThisMachineAndRemoteHostsChecksTheLocalNodeToo) {
    // The port held on this machine (first: the passing check below leaves the port in
    // TIME_WAIT, which the holder, without SO_REUSEADDR, could not bind): the local node's own
    // listener fails, naming the holder.
    TempDir state;
    {
        Background holder(
            cluster().client_command(port_holder(port_text, state.path() / "listening")), {},
            state.path() / "out", state.path() / "err");
        ASSERT_TRUE(
            eventually([&] { return std::filesystem::exists(state.path() / "listening"); }, 20s))
            << read_file(state.path() / "err");
        RunResult held = launch({}, "localhost,node1,node2");
        EXPECT_EQ(held.exit_code, 254) << describe(held);
        EXPECT_NE(held.err.find("localhost: failure (port " + port_text +
                                " is in use on the master, by process " +
                                std::to_string(holder.pid()) + " ("),
                  std::string::npos)
            << describe(held);
        EXPECT_NE(held.err.find(not_started("node1")), std::string::npos) << describe(held);
        EXPECT_NE(held.err.find(not_started("node2")), std::string::npos) << describe(held);
        EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
    }

    // Passing: the local node listens; the remote ones connect to the client's address.
    RunResult passing = launch({}, "localhost,node1,node2");
    EXPECT_EQ(passing.exit_code, 0) << describe(passing);
    EXPECT_EQ(m_fake.ranks_started(), (std::vector<int>{0, 1, 2}));

    std::filesystem::remove_all(m_fake.bin().parent_path() / "record");
    std::filesystem::create_directory(m_fake.bin().parent_path() / "record");

    // The local node connects to node1, whose port is dropped: named by the local node.
    RunResult added = cluster().exec_on_host(1, drop_port(port_text));
    ASSERT_EQ(added.exit_code, 0) << describe(added);
    Finally undo([] { cluster().exec_on_host(1, undo_drop_port()); });
    RunResult dropped = launch({}, "node1,localhost");
    EXPECT_EQ(dropped.exit_code, 254) << describe(dropped);
    EXPECT_NE(dropped.err.find(summary_block(
                  {not_started("node1"),
                   "localhost: failure (" + target(1) +
                       ": no connection within the check's time (a firewall or a security group "
                       "dropping the port between this node and the master?))"})),
              std::string::npos)
        << describe(dropped);
    EXPECT_EQ(m_fake.ranks_started(), std::vector<int>{});
}

// Real torchrun (Debian's, gloo) after a passing check, on 2 and 3 hosts: the listener is gone
// when node 0's store binds the same port.
TEST_F(RendezvousOverSsh, RealTorchrunRunsAfterThePassingCheckOnTwoAndThreeHosts) {
    for (const std::string& hosts :
         {std::string("node1,node2"), std::string("node1,node2,node3")}) {
        SCOPED_TRACE(hosts);
        LaunchOptions options;
        options.env = launcher_environment(cluster(), {}, {{"GLOO_SOCKET_IFNAME", "eth0"}});
        options.cwd = m_job.path();
        options.timeout = 240s;
        Words args = {"-H", hosts, "--nproc_per_node", "1", "--master_port", port_text,
                      // Debian's torchrun (PyTorch 1.13) fails without redirects and tee given.
                      "--extra_launch_args", "redirects=1,tee=1,monitor_interval=1",
                      (fixtures_dir() / "train_allreduce.py").string()};
        RunResult result = run_launcher(cluster(), args, options);
        ASSERT_FALSE(result.timed_out) << describe(result);
        EXPECT_EQ(result.exit_code, 0) << describe(result);
        std::string world =
            hosts.size() > 11 ? "\"sum\": 6, \"world_size\": 3" : "\"sum\": 3, \"world_size\": 2";
        EXPECT_NE(result.out.find(world), std::string::npos) << describe(result);
    }
}

} // namespace
} // namespace colossalai::test
