// The rendezvous check's program (job::rendezvous_program) as the nodes run it, here with this
// machine's python3 over loopback: the listener answers a node that connects with the launch's
// token; another listener's answer (or its silence), a port nothing listens on, a port a live
// socket holds (named with its process), a port left in TIME_WAIT (free; not to a listener
// without SO_REUSEADDR), a name that does not resolve and a host name on loopback are each the
// line the launcher parses.

#include "files.hpp"
#include "process.hpp"

#include "colossalai/job/rendezvous_check.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
using job::RendezvousOutcome;
using job::RendezvousProbe;
using job::RendezvousResult;

// A listening IPv4 socket on 127.0.0.1 and a free port (the kernel's choice), held by this
// process until the test closes it.
struct HeldPort {
    int fd = -1;
    int port = 0;
    HeldPort() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_ANY);
        socklen_t size = sizeof address;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(fd, 8) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
            ADD_FAILURE() << "cannot listen on a port of 127.0.0.1";
        }
        port = ntohs(address.sin_port);
    }
    ~HeldPort() { close(); }
    HeldPort(const HeldPort&) = delete;
    HeldPort& operator=(const HeldPort&) = delete;
    void close() {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    }
};

// A port free now: the kernel's choice, released at once.
int free_port() {
    HeldPort held;
    return held.port;
}

RendezvousProbe listener(int port, std::optional<int> expect, std::string token = "launch-1") {
    RendezvousProbe probe;
    probe.role = job::RendezvousListen{port, false, expect};
    probe.token = std::move(token);
    probe.bound = 10s;
    return probe;
}

RendezvousProbe connector(std::string address, int port, std::string token = "launch-1") {
    RendezvousProbe probe;
    probe.role = job::RendezvousConnect{std::move(address), port, false};
    probe.token = std::move(token);
    probe.bound = 3s;
    return probe;
}

// The results in a probe's output, in order; a line that is none fails the test.
std::vector<RendezvousResult> results_of(const std::string& out) {
    std::vector<RendezvousResult> results;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        std::optional<RendezvousResult> result = job::parse_rendezvous_line(line);
        EXPECT_TRUE(result && line.starts_with(job::rendezvous_marker)) << line;
        if (result) {
            results.push_back(*result);
        }
    }
    return results;
}

RunResult run_probe(const RendezvousProbe& probe,
                    std::optional<std::map<std::string, std::string>> env = std::nullopt) {
    RunOptions options;
    options.env = std::move(env);
    options.timeout = 30s;
    return run(job::rendezvous_command("python3", probe), options);
}

// A listener started in the background (answering `expect` connections), its output in `dir`;
// returns once it said "listening".
class BackgroundListener {
public:
    BackgroundListener(const TempDir& dir, int port, int expect, std::string token = "launch-1")
        : m_out(dir / ("listener-" + std::to_string(port) + ".out")),
          m_process(job::rendezvous_command("python3", listener(port, expect, std::move(token))),
                    {}, m_out, dir / ("listener-" + std::to_string(port) + ".err")) {
        EXPECT_TRUE(eventually(
            [this] { return read_file(m_out).find("listening") != std::string::npos; }, 10s))
            << read_file(m_out);
    }
    // Its exit code, once it answered what it expected (-1 with a failure if it did not end).
    int exit_code() { return exit_code_of(m_process, 15s); }
    std::string out() const { return read_file(m_out); }

private:
    std::filesystem::path m_out;
    Background m_process; // killed and reaped by its PID if the test ends first
};

TEST(RendezvousProgram, ANodeConnectsAndTheListenerAnswersThisLaunch) {
    TempDir dir;
    int port = free_port();
    BackgroundListener master(dir, port, 1);
    RunResult node = run_probe(connector("127.0.0.1", port));
    EXPECT_EQ(node.exit_code, 0) << describe(node);
    EXPECT_EQ(results_of(node.out),
              (std::vector<RendezvousResult>{
                  {RendezvousOutcome::answered, "127.0.0.1", "127.0.0.1", port}}));
    EXPECT_EQ(master.exit_code(), 0);
    EXPECT_EQ(results_of(master.out()),
              (std::vector<RendezvousResult>{{RendezvousOutcome::listening, "", "", port}}));
}

TEST(RendezvousProgram, AnotherListenerOnThePortIsNotThisLaunchsMaster) {
    TempDir dir;
    int port = free_port();
    BackgroundListener other(dir, port, 1, "another-launch");
    RunResult node = run_probe(connector("127.0.0.1", port));
    EXPECT_EQ(node.exit_code, 1) << describe(node);
    EXPECT_EQ(results_of(node.out),
              (std::vector<RendezvousResult>{
                  {RendezvousOutcome::foreign, "127.0.0.1", "127.0.0.1", port}}));
    EXPECT_EQ(other.exit_code(), 0);
}

// An earlier job's TCPStore accepts and waits for its client to speak first: connected, but no
// token within the bound is no answer of this launch's master either.
TEST(RendezvousProgram, AListenerThatSaysNothingIsNotThisLaunchsMaster) {
    HeldPort silent; // the kernel accepts into its backlog; nothing reads or writes
    RunResult node = run_probe(connector("127.0.0.1", silent.port));
    EXPECT_EQ(node.exit_code, 1) << describe(node);
    EXPECT_EQ(results_of(node.out),
              (std::vector<RendezvousResult>{
                  {RendezvousOutcome::foreign, "127.0.0.1", "127.0.0.1", silent.port}}));
}

TEST(RendezvousProgram, NothingListeningIsRefused) {
    int port = free_port();
    RunResult node = run_probe(connector("127.0.0.1", port));
    EXPECT_EQ(node.exit_code, 1) << describe(node);
    EXPECT_EQ(results_of(node.out),
              (std::vector<RendezvousResult>{
                  {RendezvousOutcome::refused, "127.0.0.1", "127.0.0.1", port}}));
}

TEST(RendezvousProgram, ARetryingNodeWaitsForTheListener) {
    TempDir dir;
    int port = free_port();
    RendezvousProbe probe = connector("127.0.0.1", port);
    std::get<job::RendezvousConnect>(probe.role).retry = true;
    probe.bound = 20s;
    Background node(job::rendezvous_command("python3", probe), {}, dir / "node.out",
                    dir / "node.err");
    ::usleep(500 * 1000); // refused a few times first
    BackgroundListener master(dir, port, 1);
    EXPECT_EQ(exit_code_of(node, 15s), 0) << read_file(dir / "node.err");
    EXPECT_EQ(results_of(read_file(dir / "node.out")),
              (std::vector<RendezvousResult>{
                  {RendezvousOutcome::answered, "127.0.0.1", "127.0.0.1", port}}));
    EXPECT_EQ(master.exit_code(), 0);
}

TEST(RendezvousProgram, APortALiveSocketListensOnIsInUseAndNamesItsProcess) {
    HeldPort held; // this test's own process holds it
    RunResult master = run_probe(listener(held.port, 0));
    EXPECT_EQ(master.exit_code, 1) << describe(master);
    std::vector<RendezvousResult> results = results_of(master.out);
    ASSERT_EQ(results.size(), 1u) << master.out;
    EXPECT_EQ(results[0].outcome, RendezvousOutcome::port_in_use);
    EXPECT_EQ(results[0].port, held.port);
    ASSERT_TRUE(results[0].holder) << master.out;
    EXPECT_EQ(results[0].holder->pid, ::getpid());
    EXPECT_NE(results[0].holder->command.find("e2e_rendezvous"), std::string::npos)
        << results[0].holder->command;
    EXPECT_NE(job::describe(results[0]).find("by process " + std::to_string(::getpid())),
              std::string::npos);
}

// Whether /proc/net/tcp{,6} shows a socket of local port `port` in TIME_WAIT (state 06).
bool in_time_wait(int port) {
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream lines(table);
        std::string line;
        std::getline(lines, line);
        while (std::getline(lines, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state;
            fields >> slot >> local >> remote >> state;
            std::size_t colon = local.rfind(':');
            if (state == "06" && colon != std::string::npos &&
                std::stoi(local.substr(colon + 1), nullptr, 16) == port) {
                return true;
            }
        }
    }
    return false;
}

TEST(RendezvousProgram, APortInTimeWaitAfterTheLastJobIsFree) {
    TempDir dir;
    int port = free_port();
    {
        // The listener answers and closes first (this client reads to the end before it closes):
        // the listener's side of the connection, on the port, is in TIME_WAIT.
        BackgroundListener last_job(dir, port, 1);
        int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        std::string answer;
        char buffer[64];
        for (ssize_t got; (got = ::read(client, buffer, sizeof buffer)) > 0;) {
            answer.append(buffer, static_cast<std::size_t>(got));
        }
        ::close(client);
        EXPECT_EQ(answer, "launch-1\n");
        EXPECT_EQ(last_job.exit_code(), 0);
    }
    ASSERT_TRUE(in_time_wait(port));
    // The control: a listener without SO_REUSEADDR cannot bind that port, so this test fails
    // for a probe that does not set it.
    int plain = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in wildcard{};
    wildcard.sin_family = AF_INET;
    wildcard.sin_port = htons(static_cast<uint16_t>(port));
    wildcard.sin_addr.s_addr = htonl(INADDR_ANY);
    int bound = ::bind(plain, reinterpret_cast<sockaddr*>(&wildcard), sizeof wildcard);
    int bind_error = errno;
    ::close(plain);
    EXPECT_EQ(bound, -1);
    EXPECT_EQ(bind_error, EADDRINUSE);
    RunResult master = run_probe(listener(port, 0));
    EXPECT_EQ(master.exit_code, 0) << describe(master);
    EXPECT_EQ(results_of(master.out),
              (std::vector<RendezvousResult>{{RendezvousOutcome::listening, "", "", port}}));
}

TEST(RendezvousProgram, ANameThatDoesNotResolve) {
    // In a network namespace of its own (no route but a loopback that is down): the lookup fails
    // there, and no query leaves for the machine's name server.
    std::vector<std::string> command = {"/usr/bin/unshare", "--net", "--"};
    for (std::string& word :
         job::rendezvous_command("python3", connector("gpu1.colossalai-test.invalid", 29500))) {
        command.push_back(std::move(word));
    }
    RunOptions options;
    options.timeout = 30s;
    RunResult node = run(command, options);
    EXPECT_EQ(node.exit_code, 1) << describe(node);
    std::vector<RendezvousResult> results = results_of(node.out);
    ASSERT_EQ(results.size(), 1u) << node.out;
    EXPECT_EQ(results[0].outcome, RendezvousOutcome::unresolved);
    EXPECT_EQ(results[0].name, "gpu1.colossalai-test.invalid");
    EXPECT_EQ(results[0].address, "");
    EXPECT_EQ(results[0].port, 29500);
    EXPECT_FALSE(results[0].error.empty());
}

// The own-name rule with a host name given to the program (the machine's is left alone): a
// listener that answers nobody (expect 0) says only what the rule found.
RunResult own_name(const std::string& hostname, bool interface_given,
                   const std::map<std::string, std::string>& extra = {}) {
    RendezvousProbe probe = listener(free_port(), 0);
    probe.own_name = job::OwnNameCheck{interface_given, hostname};
    std::map<std::string, std::string> env = current_environment();
    env.erase("GLOO_SOCKET_IFNAME");
    env.insert(extra.begin(), extra.end());
    return run_probe(probe, env);
}

TEST(RendezvousProgram, AHostNameOnLoopbackFails) {
    RunResult node = own_name("localhost", false);
    EXPECT_EQ(node.exit_code, 1) << describe(node);
    std::vector<RendezvousResult> results = results_of(node.out);
    ASSERT_EQ(results.size(), 2u) << node.out;
    EXPECT_EQ(results[0].outcome, RendezvousOutcome::own_name_loopback);
    EXPECT_EQ(results[0].name, "localhost");
    EXPECT_TRUE(results[0].address == "127.0.0.1" || results[0].address == "::1")
        << results[0].address;
    EXPECT_TRUE(job::is_failure(results[0]));
    EXPECT_EQ(results[1].outcome, RendezvousOutcome::listening);
}

TEST(RendezvousProgram, AHostNameOnLoopbackWithGloosInterfaceIsAWarning) {
    for (bool flag : {true, false}) {
        RunResult node = flag ? own_name("localhost", true)
                              : own_name("localhost", false, {{"GLOO_SOCKET_IFNAME", "lo"}});
        EXPECT_EQ(node.exit_code, 0) << describe(node);
        std::vector<RendezvousResult> results = results_of(node.out);
        ASSERT_EQ(results.size(), 2u) << node.out;
        EXPECT_EQ(results[0].outcome, RendezvousOutcome::own_name_loopback);
        EXPECT_TRUE(results[0].warning);
        EXPECT_FALSE(job::is_failure(results[0]));
    }
}

TEST(RendezvousProgram, AHostNameOnTheNodesAddressPasses) {
    RunResult node = own_name("192.0.2.1", false); // numeric: resolves to itself
    EXPECT_EQ(node.exit_code, 0) << describe(node);
    std::vector<RendezvousResult> results = results_of(node.out);
    ASSERT_EQ(results.size(), 1u) << node.out;
    EXPECT_EQ(results[0].outcome, RendezvousOutcome::listening);
}

} // namespace
} // namespace colossalai::test
