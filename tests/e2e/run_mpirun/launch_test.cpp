// `colossalai run --launcher mpirun` against Debian's real Open MPI 4.1 and MPICH 4.0 (Hydra),
// over the SSH test hosts: one mpirun runs a task per node in the plan's order; each node's
// output is exact, each node has its own exit status in the summary, one node's failed preflight
// starts no job anywhere, fail-fast and the signals reach every job through the task wrappers
// (never mpirun's own abort), and nothing is left on any node.

#include "fake_gpus.hpp"
#include "lines.hpp"
#include "rendezvous_faults.hpp"
#include "ssh_cluster.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

// Which MPI, and what it needs here: Open MPI refuses root without its two variables, and both
// reach the test hosts over ssh.
struct Mpi {
    std::string name;
    std::string program;
    std::string args;
};

void PrintTo(const Mpi& mpi, std::ostream* out) {
    *out << mpi.name;
}

const Mpi open_mpi{"OpenMpi", "mpirun.openmpi", "--mca plm_rsh_agent ssh --mca btl self,tcp"};
const Mpi mpich{"Mpich", "mpiexec.mpich", "-launcher ssh"};

class MpirunLaunch : public SharedSshCluster<3>, public ::testing::WithParamInterface<Mpi> {
protected:
    void SetUp() override {
        SharedSshCluster<3>::SetUp();
        if (IsSkipped() || HasFatalFailure()) {
            return;
        }
        install_fake_torchrun(m_dir.path());
        std::filesystem::create_directories(job());
    }

    std::filesystem::path job() const { return m_dir.path() / "job"; }
    // `name`, a script in the job's directory, which every node's preflight reads (the hosts
    // share this file system); the fake torchrun runs the behaviour its test wrote.
    std::string script(const std::string& name) const {
        write_file(job() / name, "# the job's script\n");
        return name;
    }
    std::filesystem::path recorded(int rank, const std::string& what) const {
        return m_dir.path() / "record" / (std::to_string(rank) + "." + what);
    }
    void behave(const std::string& who, const std::string& script) const {
        write_file(m_dir.path() / "behave" / (who + ".sh"), script);
    }

    // `colossalai run --launcher mpirun --mpirun PROGRAM --mpirun-args ARGS --host
    // node1,node2,node3 --nproc_per_node N ARGS...` in the client namespace, the fake torchrun
    // first on the PATH that every task exports (the hosts share this file system).
    Words launcher(const Words& args, int nproc = 1) const {
        Words argv = {binary().string(),  "run",
                      "--launcher",       "mpirun",
                      "--mpirun",         GetParam().program,
                      "--mpirun-args",    GetParam().args,
                      "--host",           "node1,node2,node3",
                      "--nproc_per_node", std::to_string(nproc)};
        argv.insert(argv.end(), args.begin(), args.end());
        return cluster().client_command(argv);
    }
    RunOptions options() const {
        RunOptions options = cluster().client_options();
        std::map<std::string, std::string> env = *options.env;
        env["PATH"] = (m_dir.path() / "bin").string() + ":/usr/bin:/bin";
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
        options.env = env;
        options.cwd = job();
        options.timeout = 120s;
        return options;
    }
    RunResult run_launcher(const Words& args, int nproc = 1) const {
        return run(launcher(args, nproc), options());
    }
    std::unique_ptr<Background> start(const Words& args) const {
        return std::make_unique<Background>(launcher(args), options(), m_dir.path() / "out",
                                            m_dir.path() / "err");
    }
    std::string launcher_err() const { return read_file(m_dir.path() / "err"); }
    bool all_recorded(const std::string& what) const {
        return eventually(
            [&] {
                for (int rank = 0; rank < 3; ++rank) {
                    if (!std::filesystem::exists(recorded(rank, what))) {
                        return false;
                    }
                }
                return true;
            },
            60s);
    }

    TempDir m_dir{"colossalai-mpirun-launch"};
};

// Bytes that no line-based label survives: \r\n, a \r progress bar, invalid UTF-8, RS bytes, no
// final newline. (Not yet: a burst of many frames at once, a line of tens of KB: mpirun's
// daemons read a task's output in chunks that may cut a frame, and write them out among the
// other tasks' chunks; docs/run.md says so.)
std::string awkward_bytes(int rank) {
    return "rank " + std::to_string(rank) + "\r\n10%\r50%\r100%\n\xff\xfe\x1e\x1e|" +
           std::string(300 + rank, static_cast<char>('a' + rank)) + "\nno final newline";
}

TEST_P(MpirunLaunch, EachNodesOutputIsExactAndEachNodeHasItsStatus) {
    for (int rank = 0; rank < 3; ++rank) {
        write_file(m_dir.path() / ("out" + std::to_string(rank)), awkward_bytes(rank));
        write_file(m_dir.path() / ("err" + std::to_string(rank)),
                   "warning " + std::to_string(rank));
    }
    behave("all", "out out$rank\nerr err$rank\n");
    RunResult result = run_launcher({"--log-dir", "logs", script("exact-4142.py"), "--lr", "a b"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    for (int rank = 0; rank < 3; ++rank) {
        std::string stem = std::to_string(rank) + "-node" + std::to_string(rank + 1);
        std::string out = read_file(job() / "logs" / (stem + ".out"));
        EXPECT_EQ(out.size(), awkward_bytes(rank).size()) << stem;
        EXPECT_TRUE(out == awkward_bytes(rank)) << stem;
        EXPECT_EQ(read_file(job() / "logs" / (stem + ".err")), "warning " + std::to_string(rank));
        // The plan's order: node rank R ran on nodeR+1, with its own words, exactly.
        std::string argv;
        for (const std::string& word :
             {std::string("--nproc_per_node=1"), std::string("--nnodes=3"),
              "--node_rank=" + std::to_string(rank), std::string("--master_addr=node1"),
              std::string("--master_port=29500"), std::string("exact-4142.py"), std::string("--lr"),
              std::string("a b")}) {
            argv += word + '\0';
        }
        EXPECT_EQ(read_file(recorded(rank, "argv")), argv) << rank;
    }
    EXPECT_NE(
        result.err.find(summary_block({"node1: success", "node2: success", "node3: success"})),
        std::string::npos)
        << describe(result);
}

// A burst: 200 KiB at once from every node, with a line of 100 KiB, `\r\n` lines, invalid UTF-8,
// RS bytes, no final newline and (`bars`) a `\r` progress bar; each node's bytes its own (the
// line's pattern differs per node), so a frame cut inside and mixed with another node's is seen.
// (Without bars for the prefixed lines in a pipe: which of a bar's states such a line shows
// depends on how the bytes were read, on every engine.)
std::string burst_bytes(int rank, const std::string& stream, bool bars = true) {
    std::string bytes = stream + " of rank " + std::to_string(rank) + "\r\n";
    for (int percent = 0; bars && percent <= 100; ++percent) {
        bytes += std::to_string(percent) + "%|" + std::string(percent / 2, '#') + '\r';
    }
    bytes += "\n\xff\xfe\xc3(\x1e\x1e\x1e\n";
    for (std::size_t i = 0; i < 100 * 1024; ++i) {
        bytes += static_cast<char>('a' + (i * 7 + static_cast<std::size_t>(rank)) % 26);
    }
    bytes += '\n';
    for (int line = 0; bytes.size() < 200 * 1024; ++line) {
        bytes += std::to_string(rank) + " line " + std::to_string(line) + "\x1e\xff\r\n";
    }
    return bytes + "no final newline";
}

TEST_P(MpirunLaunch, ABurstOfOutputWithLinesOver64KiBIsExactOnEveryNode) {
    for (int rank = 0; rank < 3; ++rank) {
        write_file(m_dir.path() / ("out" + std::to_string(rank)), burst_bytes(rank, "out"));
        write_file(m_dir.path() / ("err" + std::to_string(rank)), burst_bytes(rank, "err"));
    }
    behave("all", "out out$rank & err err$rank\nwait\n");
    RunResult result = run_launcher({"--log-dir", "logs", script("burst-6553.py")});
    ASSERT_EQ(result.exit_code, 0) << describe(result).substr(0, 4000);
    for (int rank = 0; rank < 3; ++rank) {
        std::string stem = std::to_string(rank) + "-node" + std::to_string(rank + 1);
        for (const char* stream : {"out", "err"}) {
            std::string bytes = read_file(job() / "logs" / (stem + "." + stream));
            EXPECT_EQ(bytes.size(), burst_bytes(rank, stream).size()) << stem << stream;
            EXPECT_TRUE(bytes == burst_bytes(rank, stream)) << stem << stream;
        }
    }
    // No frame was passed on as mpirun's own line (a cut one would be).
    for (const std::string& line : lines_of(result.err)) {
        EXPECT_TRUE(line.rfind("colossalai: mpirun: ", 0) != 0 ||
                    line.find("Forwarding signal") != std::string::npos)
            << line.substr(0, 300);
    }
}

// Each node's own lines of the launcher's output (`host: ` and the `host (cont.): ` pieces of a
// line past 32 KiB joined back: where such a line is cut depends on how its bytes were read).
std::string own_lines(const std::string& text, const std::string& host) {
    std::string kept;
    for (const std::string& line : lines_of(text)) {
        if (line.rfind(host + ": ", 0) == 0) {
            kept += "\n" + line.substr(host.size() + 2);
        } else if (line.rfind(host + " (cont.): ", 0) == 0) {
            kept += line.substr(host.size() + 10);
        }
    }
    return kept;
}

// The same job through the SSH engine and through mpirun, on the same hosts: each node's log
// files and its lines in the launcher's output are the same bytes.
TEST_P(MpirunLaunch, TheSameBytesAsTheSshEngine) {
    for (int rank = 0; rank < 3; ++rank) {
        write_file(m_dir.path() / ("out" + std::to_string(rank)), burst_bytes(rank, "out", false));
        write_file(m_dir.path() / ("err" + std::to_string(rank)), burst_bytes(rank, "err", false));
    }
    behave("all", "out out$rank & err err$rank\nwait\n");
    Words ssh = {binary().string(),
                 "run",
                 "--launcher",
                 "ssh",
                 "--host",
                 "node1,node2,node3",
                 "--nproc_per_node",
                 "1",
                 "--log-dir",
                 "ssh-logs",
                 script("parity-1618.py")};
    RunResult over_ssh = run(cluster().client_command(ssh), options());
    ASSERT_EQ(over_ssh.exit_code, 0) << describe(over_ssh).substr(0, 4000);
    RunResult over_mpirun = run_launcher({"--log-dir", "mpirun-logs", script("parity-1618.py")});
    ASSERT_EQ(over_mpirun.exit_code, 0) << describe(over_mpirun).substr(0, 4000);
    for (int rank = 0; rank < 3; ++rank) {
        std::string host = "node" + std::to_string(rank + 1);
        std::string stem = std::to_string(rank) + "-" + host;
        for (const char* stream : {".out", ".err"}) {
            std::string bytes = read_file(job() / "mpirun-logs" / (stem + stream));
            EXPECT_TRUE(bytes == read_file(job() / "ssh-logs" / (stem + stream)))
                << stem << stream << " " << bytes.size();
        }
        EXPECT_TRUE(own_lines(over_mpirun.out, host) == own_lines(over_ssh.out, host)) << host;

        EXPECT_TRUE(own_lines(over_mpirun.err, host) == own_lines(over_ssh.err, host)) << host;
        EXPECT_GT(own_lines(over_ssh.out, host).size(), 190u * 1024) << host;
    }
}

TEST_P(MpirunLaunch, AFailingNodeStopsTheOthersAndItsStatusIsTheLaunchers) {
    behave("all", "exec sleep 2718.28\n");
    behave("2", "echo failing >&2; exit 3\n");
    RunResult result = run_launcher({script("failfast-2718.py")});
    EXPECT_EQ(result.exit_code, 3) << describe(result);
    EXPECT_TRUE(has_line(result.err, "node3: failing")) << describe(result);
    // The stop reaches the other jobs through the wrappers (SIGTERM), and each reports it; a
    // node whose wrapper was stopped after the go but before it started its job (node3 failed at
    // once, on a busy machine) honestly reads "not started".
    EXPECT_TRUE(has_line(result.err, "node3: failure (exit code 3)")) << describe(result);
    for (std::string node : {"node1", "node2"}) {
        EXPECT_TRUE(
            has_line(result.err, node + ": failure (killed by SIGTERM, stopped by the launcher)") ||
            has_line(result.err, node + ": failure (not started, stopped by the launcher)"))
            << node << ": " << describe(result);
    }
    cluster().expect_no_process_with_marker("failfast-2718", 30s);
}

// node2's sshd is down: mpirun cannot start its daemon there. Open MPI's mpirun ends by itself once
// a daemon's ssh failed; MPICH's Hydra waits for ever for that proxy, so the launch ends at the
// bound on the tasks' start (--ssh-timeout 3 without the rendezvous check: 9 s), killing mpiexec.
// Either way ssh's own line is passed on, no job starts on any node, and each node's line says what
// became of it.
TEST_P(MpirunLaunch, ANodeWhoseSshdIsDownStartsNoJobAnywhere) {
    cluster().stop_sshd(2);
    Finally restore([&] { cluster().start_sshd(2); });
    behave("all", "exec sleep 3141.59\n");
    RunResult result =
        run_launcher({"--ssh-timeout", "3", "--no-rendezvous-check", script("sshd-down-3141.py")});
    EXPECT_TRUE(has_line(
        result.err, "colossalai: mpirun: ssh: connect to host node2 port 22: Connection refused"))
        << describe(result);
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_FALSE(std::filesystem::exists(recorded(rank, "argv"))) << rank; // never started
    }
    std::vector<std::string> summary;
    if (GetParam().name == "Mpich") {
        EXPECT_EQ(result.exit_code, 254) << describe(result);
        summary = {"node1: failure (not started, stopped by the launcher)",
                   "node2: failure (mpirun started no task there within 9 s: is its sshd "
                   "reachable from this machine?)",
                   "node3: failure (not started, stopped by the launcher)"};
    } else {
        EXPECT_EQ(result.exit_code, 255) << describe(result);
        for (int node = 1; node <= 3; ++node) {
            summary.push_back("node" + std::to_string(node) +
                              ": failure (mpirun exited with exit code 255 before its task there "
                              "was ready)");
        }
    }
    for (const std::string& line : summary) {
        EXPECT_TRUE(has_line(result.err, line)) << line << "\n" << describe(result);
    }
    cluster().expect_no_process_with_marker("sshd-down-3141", 30s);
}

// Debian's real torchrun on every node through mpirun (gloo over the hosts' eth0): one process
// per node, world size 3, and each node's process has its node's rank.
TEST_P(MpirunLaunch, RealTorchrunHasWorldSizeThreeAndEachNodesRank) {
    RunOptions real = options();
    (*real.env)["PATH"] = "/usr/local/bin:/usr/bin:/bin";
    real.timeout = 180s;
    write_file(job() / "train_allreduce.py", read_file(fixtures_dir() / "train_allreduce.py"));
    // Debian's torchrun needs redirects set (tests/e2e/run_ssh/launch/torchrun_test.cpp).
    RunResult result = run(launcher({"-x", "GLOO_SOCKET_IFNAME=eth0", "--extra_launch_args",
                                     "redirects=1,tee=1,monitor_interval=1", "train_allreduce.py"}),
                           real);
    ASSERT_FALSE(result.timed_out) << describe(result);
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    for (int rank = 0; rank < 3; ++rank) {
        std::string host = "node" + std::to_string(rank + 1);
        bool found = false;
        for (const std::string& line : lines_of(result.out)) {
            found = found ||
                    (line.rfind(host + ": ", 0) == 0 &&
                     line.find("\"rank\": " + std::to_string(rank) + ",") != std::string::npos &&
                     line.find("\"world_size\": 3") != std::string::npos &&
                     line.find("\"sum\": 6") != std::string::npos &&
                     line.find("\"host\": \"" + host + "\"") != std::string::npos);
        }
        EXPECT_TRUE(found) << host << ": " << describe(result);
    }
}

// One node with too few GPUs (the fake nvidia-smi first on the tasks' PATH): the launch stops
// before any job starts, exit 254, that node named with what it found.
TEST_P(MpirunLaunch, ANodeWhosePreflightFailsStopsEveryNodeBeforeItsJob) {
    install_fake_nvidia_smi(m_dir.path() / "bin", 2);
    set_fake_gpus(m_dir.path() / "bin", "node2", 1);
    RunResult result = run_launcher({script("preflight-1732.py")}, 2);
    EXPECT_EQ(result.exit_code, 254) << describe(result);
    EXPECT_NE(result.err.find("\nnode2: failure (2 GPUs asked (2 processes, one GPU each), 1 "
                              "found (nvidia-smi -L)"),
              std::string::npos)
        << describe(result);
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_FALSE(std::filesystem::exists(recorded(rank, "argv"))) << rank; // never started
    }
    EXPECT_TRUE(has_line(result.err, "node1: failure (not started, stopped by the launcher)") ||
                has_line(result.err, "node1: not started"))
        << describe(result);
}

// SIGTERM to the launcher reaches every job (never mpirun's abort, which would give it one
// second and lose its status): a job that traps it writes its checkpoint and exits 0, and the
// summary says what each node got and how it ended.
TEST_P(MpirunLaunch, ASigtermReachesEveryJobWhoseHandlerWritesItsCheckpoint) {
    behave("all", "trap 'sleep 1.5; echo \"rank $rank saving\"; echo saved > "
                  "\"$record/$rank.checkpoint\"; exit 0' TERM\n"
                  ": > \"$record/$rank.trapping\"\n"
                  "while :; do sleep 0.1; done\n");
    std::unique_ptr<Background> running =
        start({"--kill-grace", "20", script("checkpoint-2236.py")});
    ASSERT_TRUE(all_recorded("trapping")) << launcher_err();
    running->signal(SIGTERM);
    EXPECT_EQ(exit_code_of(*running, 60s), 143) << launcher_err();
    std::string out = read_file(m_dir.path() / "out");
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_EQ(read_file(recorded(rank, "checkpoint")), "saved\n") << rank;
        EXPECT_TRUE(has_line(out, "node" + std::to_string(rank + 1) + ": rank " +
                                      std::to_string(rank) + " saving"))
            << out;
    }
    EXPECT_NE(launcher_err().find(summary_block(
                  {"node1: success (exit code 0 after SIGTERM, stopped by the launcher)",
                   "node2: success (exit code 0 after SIGTERM, stopped by the launcher)",
                   "node3: success (exit code 0 after SIGTERM, stopped by the launcher)"})),
              std::string::npos)
        << launcher_err();
    cluster().expect_no_process_with_marker("checkpoint-2236", 30s);
}

// Ctrl-C stops every job; a second one kills a job that ignores the first at once. Nothing of
// the jobs is left on any node.
TEST_P(MpirunLaunch, CtrlCThenASecondCtrlCEndsEveryJob) {
    behave("all", "trap '' INT TERM\n: > \"$record/$rank.trapping\"\nexec sleep 1414.21\n");
    std::unique_ptr<Background> running = start({"--kill-grace", "60", script("ctrlc-1414.py")});
    ASSERT_TRUE(all_recorded("trapping")) << launcher_err();
    running->signal(SIGINT);
    std::this_thread::sleep_for(1s);
    running->signal(SIGINT);
    EXPECT_EQ(exit_code_of(*running, 60s), 130) << launcher_err();
    cluster().expect_no_process_with_marker("1414.21", 30s);
}

// The rendezvous check in each task before its ready marker (job::ProbeStart::together: node 0's
// task listens until the others were answered, they retry within the bound): a node whose check
// failed is never ready, so no task is let go. Each cause is named, exit 254, within seconds (Open
// MPI's stop reaches a task's wrapper only, which ends once its own probe does: the listener's
// twice the bound), and no job started on any node.
class MpirunRendezvous : public MpirunLaunch {
protected:
    static constexpr const char* port = "29437";

    RunResult launch(const Words& extra = {}) {
        Words args = {"--master_port", port};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(script("rdzv-2903.py"));
        return run_launcher(args);
    }

    // The summary line of `node`.
    static std::string summary_of(const RunResult& result, const std::string& node) {
        std::size_t summary_at = result.err.find(summary_block({}));
        std::size_t at = result.err.find("\n" + node + ": ", summary_at);
        if (summary_at == std::string::npos || at == std::string::npos) {
            ADD_FAILURE() << "no summary line of " << node << "\n" << describe(result);
            return {};
        }
        return result.err.substr(at + 1, result.err.find('\n', at + 1) - at - 1);
    }

    // Exit 254, each node's summary line a failure, no job started anywhere.
    void expect_refused(const RunResult& result) const {
        EXPECT_EQ(result.exit_code, 254) << describe(result);
        for (int rank = 0; rank < 3; ++rank) {
            std::string node = "node" + std::to_string(rank + 1);
            EXPECT_EQ(summary_of(result, node).rfind(node + ": failure (", 0), 0u)
                << describe(result);
            EXPECT_FALSE(std::filesystem::exists(recorded(rank, "argv"))) << rank;
        }
    }
};

TEST_P(MpirunRendezvous, APortDroppedOnTheMasterIsNamedByTheOtherNodes) {
    RunResult added = cluster().exec_on_host(1, drop_port(port));
    ASSERT_EQ(added.exit_code, 0) << describe(added);
    Finally undo([] { cluster().exec_on_host(1, undo_drop_port()); });
    auto started = std::chrono::steady_clock::now();
    RunResult result = launch();
    expect_refused(result);
    // The first node whose connection timed out is named; the other one names its own, or was
    // stopped first (Hydra's stop ends its probe at once).
    int named = 0;
    for (const std::string node : {"node2", "node3"}) {
        std::string line = summary_of(result, node);
        if (line.find(std::string("port ") + port + ": no connection within the check's time") !=
            std::string::npos) {
            ++named;
        } else {
            EXPECT_EQ(line, node + ": failure (not started, stopped by the launcher)")
                << describe(result);
        }
    }
    EXPECT_GE(named, 1) << describe(result);
    EXPECT_EQ(summary_of(result, "node1"), "node1: failure (not started, stopped by the launcher)")
        << describe(result);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 45s);

    // Without the check, the (fake) jobs start.
    RunResult unchecked = launch({"--no-rendezvous-check"});
    EXPECT_EQ(unchecked.exit_code, 0) << describe(unchecked);
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_TRUE(std::filesystem::exists(recorded(rank, "argv"))) << rank;
    }
}

TEST_P(MpirunRendezvous, APortHeldOnTheMasterIsNamedWithItsProcess) {
    TempDir state;
    Background holder(cluster().host_command(1, port_holder(port, state.path() / "listening")), {},
                      state.path() / "out", state.path() / "err");
    ASSERT_TRUE(
        eventually([&] { return std::filesystem::exists(state.path() / "listening"); }, 20s))
        << read_file(state.path() / "err");
    auto started = std::chrono::steady_clock::now();
    RunResult result = launch();
    expect_refused(result);
    std::string named = summary_of(result, "node1");
    EXPECT_EQ(named.rfind(std::string("node1: failure (port ") + port +
                              " is in use on the master, by process " +
                              std::to_string(holder.pid()) + " (",
                          0),
              0u)
        << describe(result);
    // Its command line, cut at 200 bytes.
    EXPECT_NE(named.find("python3 -c import socket, sys, time s = socket.socket()"),
              std::string::npos)
        << describe(result);
    for (const std::string node : {"node2", "node3"}) {
        EXPECT_EQ(summary_of(result, node),
                  node + ": failure (not started, stopped by the launcher)")
            << describe(result);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 45s);
}

// Every launch of the suites above passes the check (node1's port 29500); this one says so.
TEST_P(MpirunRendezvous, APassingCheckStartsEveryJob) {
    RunResult result = launch();
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_TRUE(std::filesystem::exists(recorded(rank, "argv"))) << rank;
    }
    RunResult dry = launch({"--dry-run"});
    EXPECT_TRUE(has_line(dry.out, std::string("rendezvous check: node 0 listens on port ") + port +
                                      ", the others connect to node1 port " + port +
                                      " before the jobs start (--no-rendezvous-check: none)"))
        << describe(dry);
}

INSTANTIATE_TEST_SUITE_P(Mpis, MpirunRendezvous, ::testing::Values(open_mpi, mpich),
                         [](const ::testing::TestParamInfo<Mpi>& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(Mpis, MpirunLaunch, ::testing::Values(open_mpi, mpich),
                         [](const ::testing::TestParamInfo<Mpi>& info) { return info.param.name; });

} // namespace
} // namespace colossalai::test
