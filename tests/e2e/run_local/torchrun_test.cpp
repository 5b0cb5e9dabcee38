// `colossalai run` with Debian's real torchrun (PyTorch 1.13, gloo on CPU) on this machine:
// tests/fixtures/train_allreduce.py on one and on two local nodes, a failing rank, and signals.
// PATH is /usr/bin:/bin, so that `python3` is Debian's (with torch), not a pyenv shim.

#include "fake_gpus.hpp"
#include "support.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;
using Words = std::vector<std::string>;

Words sorted_lines(const std::string& text) {
    Words lines;
    size_t start = 0;
    for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    EXPECT_EQ(start, text.size()) << "a last line without newline";
    std::sort(lines.begin(), lines.end());
    return lines;
}

// A TCP port free right now: tests run in parallel, each needs its own rendezvous port.
int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        ::close(fd);
        return 0;
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

std::string hostname() {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return name;
}

const std::string summary_header = "====== Training on All Nodes =====";

class RealTorchrun : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists("/usr/bin/torchrun")) {
            GTEST_SKIP() << "Debian's python3-torch (/usr/bin/torchrun) is not installed";
        }
        write_file(job() / "hosts", "localhost\n127.0.0.1\n");
    }

    void TearDown() override {
        for (pid_t pid : job_processes()) {
            ::kill(pid, SIGKILL);
        }
    }

    std::filesystem::path job() const { return m_dir / "job"; }

    // Every process of this test's jobs carries COLOSSALAI_TEST_JOB in its environment.
    std::vector<pid_t> job_processes() const {
        return processes_with_environment("COLOSSALAI_TEST_JOB=" + m_dir.path().string());
    }

    RunOptions options() const {
        RunOptions options;
        options.cwd = job();
        // Without OMP_NUM_THREADS torchrun warns about it on stderr.
        options.env =
            std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"},
                                               {"OMP_NUM_THREADS", "1"},
                                               {"COLOSSALAI_TEST_JOB", m_dir.path().string()}};
        options.timeout = 600s; // a hang, not slowness: two nodes take 20 s on an idle machine
        return options;
    }

    // `colossalai run` of train_allreduce.py with `launcher` options and `script` arguments.
    Words command(const Words& launcher, const Words& script) const {
        Words words = {binary().string(),     "run",
                       "--master_port",       std::to_string(m_port),
                       "--extra_launch_args", "redirects=1,tee=1,monitor_interval=1"};
        words.insert(words.end(), launcher.begin(), launcher.end());
        words.push_back((fixtures_dir() / "train_allreduce.py").string());
        words.insert(words.end(), script.begin(), script.end());
        return words;
    }

    // The line rank `rank` prints (torchrun's tee prefix included), `argv` as JSON.
    // `env` is the JSON of the variables --echo-env asked for.
    static std::string record(int rank, int local_rank, int world, const std::string& argv,
                              const std::string& env = "{}") {
        return "[default" + std::to_string(local_rank) + "]:{\"argv\": " + argv +
               ", \"env\": " + env + ", \"host\": \"" + hostname() +
               "\", \"local_rank\": " + std::to_string(local_rank) +
               ", \"rank\": " + std::to_string(rank) +
               ", \"sum\": " + std::to_string(world * (world + 1) / 2) +
               ", \"world_size\": " + std::to_string(world) + "}";
    }

    void expect_nothing_left() const {
        EXPECT_TRUE(eventually([&] { return job_processes().empty(); }, 30s))
            << job_processes().size() << " processes of the job left";
    }

    TempDir m_dir{"colossalai-torchrun"};
    int m_port = free_port();
};

const Words hostile = {"--tag", "a b", "it's $(touch pwned) ; x"};
const std::string hostile_json = "[\"--tag\", \"a b\", \"it's $(touch pwned) ; x\"]";

TEST_F(RealTorchrun, TwoRanksOnOneNode) {
    RunResult result = run(command({"--nproc_per_node", "2"}, hostile), options());
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(sorted_lines(result.out),
              Words({record(0, 0, 2, hostile_json), record(1, 1, 2, hostile_json)}));
    EXPECT_EQ(sorted_lines(result.err),
              Words({"127.0.0.1: success", summary_header, "train_allreduce: rank 0 done",
                     "train_allreduce: rank 1 done"}));
    EXPECT_FALSE(std::filesystem::exists(job() / "pwned"));
    expect_nothing_left();
}

TEST_F(RealTorchrun, FourRanksOnTwoLocalNodes) {
    RunResult result =
        run(command({"--hostfile", "hosts", "--nproc_per_node", "2"}, hostile), options());
    EXPECT_EQ(result.exit_code, 0) << result.err;
    Words out;
    for (int rank = 0; rank < 4; ++rank) {
        std::string host = rank < 2 ? "localhost: " : "127.0.0.1: ";
        out.push_back(host + record(rank, rank % 2, 4, hostile_json));
    }
    std::sort(out.begin(), out.end());
    EXPECT_EQ(sorted_lines(result.out), out);
    EXPECT_EQ(sorted_lines(result.err),
              Words({"127.0.0.1: success", "127.0.0.1: train_allreduce: rank 2 done",
                     "127.0.0.1: train_allreduce: rank 3 done", summary_header,
                     "localhost: success", "localhost: train_allreduce: rank 0 done",
                     "localhost: train_allreduce: rank 1 done"}));
    EXPECT_TRUE(
        result.err.ends_with(summary_header + "\nlocalhost: success\n127.0.0.1: success\n"));
    expect_nothing_left();
}

// GPU indices in DeepSpeed's form give each node its own process count and CUDA_VISIBLE_DEVICES
// (in the order written); torchrun numbers the ranks across the different counts: 3 ranks, not
// nnodes * nproc.
TEST_F(RealTorchrun, GpuIndicesGiveEachNodeItsCountAndDevices) {
    const Words echo = {"--echo-env", "CUDA_VISIBLE_DEVICES,LOCAL_WORLD_SIZE"};
    const std::string argv = "[\"--echo-env\", \"CUDA_VISIBLE_DEVICES,LOCAL_WORLD_SIZE\"]";
    // The GPU preflight asks this machine for 4 GPUs (index 3): the fake nvidia-smi has them.
    install_fake_nvidia_smi(m_dir / "gpus", 4);
    RunOptions with_gpus = options();
    (*with_gpus.env)["PATH"] = (m_dir / "gpus").string() + ":/usr/bin:/bin";
    RunResult result =
        run(command({"--hostfile", "hosts", "--include", "localhost:1,0@127.0.0.1:3"}, echo),
            with_gpus);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const std::string first = R"({"CUDA_VISIBLE_DEVICES": "1,0", "LOCAL_WORLD_SIZE": "2"})";
    const std::string second = R"({"CUDA_VISIBLE_DEVICES": "3", "LOCAL_WORLD_SIZE": "1"})";
    Words out = {"localhost: " + record(0, 0, 3, argv, first),
                 "localhost: " + record(1, 1, 3, argv, first),
                 "127.0.0.1: " + record(2, 0, 3, argv, second)};
    std::sort(out.begin(), out.end());
    EXPECT_EQ(sorted_lines(result.out), out);
    expect_nothing_left();
}

bool has_line(const std::string& text, const std::string& line) {
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST_F(RealTorchrun, AFailingRankFailsTheJob) {
    RunResult result = run(
        command({"--nproc_per_node", "2"}, {"--exit-code", "5", "--exit-rank", "1"}), options());
    // torchrun reports a failed worker with its own status 1, and names the rank and its code.
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_TRUE(result.err.ends_with(summary_header + "\n127.0.0.1: failure (exit code 1)\n"))
        << result.err;
    EXPECT_TRUE(has_line(result.err, "  rank      : 1 (local_rank: 1)")) << result.err;
    EXPECT_NE(result.err.find("\n  exitcode  : 5 (pid: "), std::string::npos) << result.err;
    expect_nothing_left();
}

// The launcher's exit status after it was started in the background and signalled, once every
// rank is past its all-reduce (in its --sleep). The ranks' stderr shows that: their stdout comes
// through torchrun's tee, which Python buffers in a pipe until torchrun exits.
class SignalledTorchrun : public RealTorchrun {
protected:
    std::optional<int> signalled(int signo, const Words& launcher) {
        Background background(command(launcher, {"--sleep", "300"}), options(), m_dir / "out",
                              m_dir / "err");
        bool started = eventually(
            [&] {
                std::string err = read_file(m_dir / "err");
                return has_line(err, "train_allreduce: rank 0 done") &&
                       has_line(err, "train_allreduce: rank 1 done");
            },
            180s);
        EXPECT_TRUE(started) << read_file(m_dir / "err");
        background.signal(started ? signo : SIGKILL);
        return background.wait(60s);
    }
};

TEST_F(SignalledTorchrun, SigintStopsTheJobAndLeavesNothing) {
    std::optional<int> status = signalled(SIGINT, {"--nproc_per_node", "2"});
    ASSERT_TRUE(status.has_value()) << "the launcher still runs";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 130) << *status;
    std::string err = read_file(m_dir / "err");
    EXPECT_TRUE(has_line(err, "colossalai: received SIGINT; stopping all nodes (Ctrl-C again "
                              "kills them at once)"))
        << err;
    // torchrun stops its workers on SIGINT and exits 1 (NOTES.md).
    EXPECT_TRUE(err.ends_with(summary_header +
                              "\n127.0.0.1: failure (exit code 1 after SIGINT, stopped by the "
                              "launcher)\n"))
        << err;
    // Its workers' records, held in torchrun's stdout buffer, come out when it exits.
    EXPECT_EQ(sorted_lines(read_file(m_dir / "out")),
              Words({record(0, 0, 2, "[\"--sleep\", \"300\"]"),
                     record(1, 1, 2, "[\"--sleep\", \"300\"]")}));
    expect_nothing_left();
}

// torchrun's workers outlive a SIGKILLed torchrun (NOTES.md); the guardian stops its group.
TEST_F(SignalledTorchrun, ASigkilledLauncherLeavesNoWorker) {
    std::optional<int> status = signalled(SIGKILL, {"--kill-grace", "3", "--nproc_per_node", "2"});
    ASSERT_TRUE(status.has_value()) << "the launcher still runs";
    EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL) << *status;
    expect_nothing_left();
}

// torchrun's tee thread writes the workers' lines to its own stdout without flushing, and Python
// buffers a pipe's stdout in 8 KiB blocks: without PYTHONUNBUFFERED=1, which the launcher sets
// unless the user did, a training's stdout would arrive per 8 KiB or only when torchrun exits.
TEST_F(RealTorchrun, TeedStdoutArrivesWhileTheJobRuns) {
    Background background(command({"--nproc_per_node", "1"}, {"--sleep", "300"}), options(),
                          m_dir / "out", m_dir / "err");
    EXPECT_TRUE(eventually(
        [&] { return has_line(read_file(m_dir / "err"), "train_allreduce: rank 0 done"); }, 180s));
    EXPECT_TRUE(eventually(
        [&] {
            return read_file(m_dir / "out") == record(0, 0, 1, "[\"--sleep\", \"300\"]") + "\n";
        },
        20s))
        << "stdout so far: " << read_file(m_dir / "out");
    background.signal(SIGTERM);
    EXPECT_TRUE(background.wait(60s).has_value());
    expect_nothing_left();
}

} // namespace
} // namespace colossalai::test
