#include "colossalai/job/rendezvous_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace colossalai::job {
namespace {

using namespace std::chrono_literals;

RendezvousPlan two_machines() {
    RendezvousPlan plan;
    plan.python = "python3";
    plan.token = "0123456789abcdef";
    plan.listener = 0;
    plan.address = "node0";
    plan.port = 29500;
    plan.own_name = true;
    plan.bound = 5s;
    plan.nodes = 4;
    return plan;
}

TEST(RendezvousProbe, TheListenerServesTheTokenUntilToldToStop) {
    RendezvousProbe probe = probe_for(two_machines(), 0, ProbeStart::told);
    EXPECT_EQ(rendezvous_arguments(probe),
              (std::vector<std::string>{"--listen", "29500", "--stdin", "--token",
                                        "0123456789abcdef", "--own-name", "--bound-ms", "5000"}));
}

TEST(RendezvousProbe, TheOthersConnectAndCompareTheToken) {
    RendezvousPlan plan = two_machines();
    plan.interface_given = true;
    EXPECT_EQ(rendezvous_arguments(probe_for(plan, 1, ProbeStart::together)),
              (std::vector<std::string>{"--connect", "node0", "--port", "29500", "--retry",
                                        "--token", "0123456789abcdef", "--own-name",
                                        "--interface-given", "--bound-ms", "5000"}));
}

TEST(RendezvousProbe, WithoutAGoLineTheListenerCountsTheOthers) {
    EXPECT_EQ(rendezvous_arguments(probe_for(two_machines(), 0, ProbeStart::together)),
              (std::vector<std::string>{"--listen", "29500", "--expect", "3", "--token",
                                        "0123456789abcdef", "--own-name", "--bound-ms", "5000"}));
}

TEST(RendezvousProbe, AnEndpointOutsideTheJobIsOnlyConnectedTo) {
    RendezvousPlan plan = two_machines();
    plan.listener = std::nullopt;
    plan.own_name = false;
    plan.address = "etcd.example";
    plan.port = 2379;
    // Node 0 too: none of the nodes serves it.
    EXPECT_EQ(rendezvous_arguments(probe_for(plan, 0, ProbeStart::told)),
              (std::vector<std::string>{"--connect", "etcd.example", "--port", "2379", "--bound-ms",
                                        "5000"}));
}

TEST(RendezvousProbe, ATestMayNameTheHostNameAndTheListenerMayExpectACount) {
    RendezvousProbe probe;
    probe.role = RendezvousListen{29400, false, 3};
    probe.token = "t";
    probe.own_name = OwnNameCheck{false, "fake-host"};
    probe.bound = 250ms;
    EXPECT_EQ(
        rendezvous_arguments(probe),
        (std::vector<std::string>{"--listen", "29400", "--expect", "3", "--token", "t",
                                  "--own-name", "--hostname", "fake-host", "--bound-ms", "250"}));
}

TEST(RendezvousProbe, TheCommandIsTheNodesPythonIsolated) {
    std::vector<std::string> argv =
        rendezvous_command("/opt/py/bin/python", probe_for(two_machines(), 1, ProbeStart::told));
    ASSERT_GE(argv.size(), 6u);
    EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 4),
              (std::vector<std::string>{"/opt/py/bin/python", "-I", "-S", "-c"}));
    EXPECT_EQ(argv[4], rendezvous_program());
    EXPECT_EQ(argv[5], "--connect");
}

TEST(RendezvousProbe, TheProgramFitsInAShellsSingleQuotes) {
    EXPECT_EQ(rendezvous_program().find('\''), std::string_view::npos);
    EXPECT_NE(rendezvous_program().find("SO_REUSEADDR"), std::string_view::npos);
    EXPECT_NE(rendezvous_program().find("IPV6_V6ONLY"), std::string_view::npos);
}

TEST(RendezvousProbe, EachTokenIsFresh) {
    std::string token = fresh_rendezvous_token();
    EXPECT_EQ(token.size(), 16u);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(token, fresh_rendezvous_token());
}

// Every outcome: the program's line, what it parses into, and what the user reads.
struct LineCase {
    std::string line;
    RendezvousResult result;
    bool failure;
    std::string message;
};

std::vector<LineCase> line_cases() {
    using O = RendezvousOutcome;
    return {
        {"listening - - 29500",
         {O::listening, "", "", 29500},
         false,
         "listening on port 29500 for the rendezvous check"},
        {"answered node0 10.0.0.1 29500",
         {O::answered, "node0", "10.0.0.1", 29500},
         false,
         "reached 'node0' (10.0.0.1) port 29500"},
        {"reached etcd 10.0.0.9 2379",
         {O::reached, "etcd", "10.0.0.9", 2379},
         false,
         "reached 'etcd' (10.0.0.9) port 2379"},
        {"port-in-use - - 29500 4242 python train.py --x",
         {O::port_in_use, "", "", 29500, "", PortHolder{4242, "python train.py --x"}},
         true,
         "port 29500 is in use on the master, by process 4242 (python train.py --x): an earlier "
         "job still running? (stop it, or give --master_port another port)"},
        {"port-in-use - - 29500",
         {O::port_in_use, "", "", 29500},
         true,
         "port 29500 is in use on the master: an earlier job still running? (stop it, or give "
         "--master_port another port)"},
        {"cannot-listen - - 80 EACCES",
         {O::cannot_listen, "", "", 80, "EACCES"},
         true,
         "cannot listen on port 80 on the master (EACCES; give --master_port another port)"},
        {"foreign node0 10.0.0.7 29500",
         {O::foreign, "node0", "10.0.0.7", 29500},
         true,
         "'node0' (10.0.0.7) port 29500 answered, but not as this launch's master: the name "
         "leads this node to another machine that listens on that port (set --master_addr to "
         "an address that reaches the master from every node)"},
        {"refused node0 10.0.0.1 29500",
         {O::refused, "node0", "10.0.0.1", 29500},
         true,
         "'node0' (10.0.0.1) port 29500: connection refused (nothing listens there: does the "
         "name lead this node to another machine than the master?)"},
        {"timed-out 10.0.0.1 10.0.0.1 29500",
         {O::timed_out, "10.0.0.1", "10.0.0.1", 29500},
         true,
         "'10.0.0.1' port 29500: no connection within the check's time (a firewall or a "
         "security group dropping the port between this node and the master?)"},
        {"no-route node0 10.0.0.1 29500 EHOSTUNREACH",
         {O::no_route, "node0", "10.0.0.1", 29500, "EHOSTUNREACH"},
         true,
         "'node0' (10.0.0.1) port 29500: no route to the host (EHOSTUNREACH; is the address one "
         "this node can reach? --network-interface, a route)"},
        {"cannot-connect node0 fe80::1%eth0 29500 ECONNRESET",
         {O::cannot_connect, "node0", "fe80::1%eth0", 29500, "ECONNRESET"},
         true,
         "'node0' (fe80::1%eth0) port 29500: cannot connect (ECONNRESET)"},
        {"unresolved gpu1.invalid - 29500 Name or service not known",
         {O::unresolved, "gpu1.invalid", "", 29500, "Name or service not known"},
         true,
         "'gpu1.invalid' port 29500: the name does not resolve on this node (Name or service "
         "not known; set --master_addr to an address every node can reach)"},
        {"own-name-loopback node3 127.0.1.1 - fail",
         {O::own_name_loopback, "node3", "127.0.1.1", 0},
         true,
         "the node's own name 'node3' resolves to the loopback address 127.0.1.1 on the node, "
         "which gloo would advertise to the other nodes (map the name to the node's own address "
         "in /etc/hosts, or give --network-interface)"},
        {"own-name-loopback node3 127.0.1.1 - warn",
         {O::own_name_loopback, "node3", "127.0.1.1", 0, "", std::nullopt, true},
         false,
         "the node's own name 'node3' resolves to the loopback address 127.0.1.1 on the node "
         "(gloo uses the interface it was given instead)"},
        {"own-name-loopback node3 - - fail",
         {O::own_name_loopback, "node3", "", 0},
         true,
         "the node's own name 'node3' does not resolve on the node, so gloo falls back to "
         "loopback, which gloo would advertise to the other nodes (map the name to the node's "
         "own address in /etc/hosts, or give --network-interface)"},
    };
}

TEST(RendezvousResult, EachLineParsesRendersAndReadsAsOneLine) {
    for (const LineCase& c : line_cases()) {
        SCOPED_TRACE(c.line);
        std::optional<RendezvousResult> parsed =
            parse_rendezvous_line(std::string(rendezvous_marker) + c.line + "\n");
        ASSERT_TRUE(parsed);
        EXPECT_EQ(*parsed, c.result);
        EXPECT_EQ(parse_rendezvous_line(c.line), c.result); // the marker is optional
        EXPECT_EQ(rendezvous_line(c.result), c.line);
        EXPECT_EQ(is_failure(c.result), c.failure);
        EXPECT_EQ(describe(c.result), c.message);
    }
}

TEST(RendezvousResult, OtherLinesAreNotResults) {
    for (std::string_view line :
         {"", "listening", "hello - - 1", "listening - - 0", "listening - - 70000",
          "port-in-use - - 1 pid cmd", "own-name-loopback n 127.0.1.1 - maybe"}) {
        EXPECT_EQ(parse_rendezvous_line(line), std::nullopt) << line;
    }
}

TEST(RendezvousResult, ANameIsShownEscaped) {
    RendezvousResult result{RendezvousOutcome::refused, "a\nb", "10.0.0.1", 1};
    EXPECT_EQ(describe(result).find('\n'), std::string::npos);
}

} // namespace
} // namespace colossalai::job
