// Faults of local launches that only show at scale: a node flooding its output, many launches in
// a row, and what one launch leaves open or allocated (under valgrind). The figures these tests
// print are recorded in docs/reliability.md ("Faults, measured").

#include "flood.hpp"
#include "launch_fixture.hpp"
#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace colossalai::test {
namespace {

using namespace std::chrono_literals;

#if defined(COLOSSALAI_TEST_SANITIZED)
// Sanitizer runtimes map shadow memory and keep freed blocks in quarantine: RSS says nothing about
// the launcher then, and valgrind cannot run such a binary.
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

// 200 MB from node 0 (2,000,000 lines of 100 bytes) while node 1 prints 100,000 short lines, to a
// launcher whose stdout is a file. The launcher's peak RSS stays small, and the file is read back
// one line at a time: every line of each node arrives once, whole, in order, with its prefix.
TEST_F(RunLaunch, AFloodOfOutputKeepsTheLauncherSmallAndEveryLineWhole) {
    const long flood_lines = 2000000;
    const long trickle_lines = 100000;
    ASSERT_EQ(flood_line(0, 1).size() + 1, 100u);
    two_local_nodes();
    behave("0", "seq -f '%09.0f " + flood_line(0, 1).substr(10) + "' 1 " +
                    std::to_string(flood_lines) + "\n");
    behave("1", "seq -f '%06.0f trickle' 1 " + std::to_string(trickle_lines) + "\n");
    std::unique_ptr<Background> launcher =
        start_launcher({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
    struct rusage usage {};
    std::optional<int> status = launcher->wait(300s, &usage);
    ASSERT_TRUE(status.has_value()) << "the launcher did not end within 300 s";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << launcher_err();
    EXPECT_EQ(launcher_err(), summary_block({"localhost: success", "127.0.0.1: success"}));

    const std::vector<std::string> prefixes = {"localhost: ", "127.0.0.1: "};
    const std::vector<long> expected_counts = {flood_lines, trickle_lines};
    std::vector<long> counts = {0, 0};
    std::vector<Checksum> got(2), expected(2);
    long bad = 0;
    std::ifstream out(m_dir / "launcher.out", std::ios::binary);
    std::string line;
    long bytes = 0;
    while (std::getline(out, line)) {
        bytes += static_cast<long>(line.size()) + 1;
        int rank = line.rfind(prefixes[0], 0) == 0 ? 0 : line.rfind(prefixes[1], 0) == 0 ? 1 : -1;
        if (rank < 0) {
            ++bad;
            continue;
        }
        std::string content = line.substr(prefixes[rank].size());
        got[rank].add(content);
        long index = ++counts[rank];
        if (index > expected_counts[rank] || content != flood_line(rank, index)) {
            ++bad;
        }
    }
    for (int rank : {0, 1}) {
        for (long i = 1; i <= expected_counts[rank]; ++i) {
            expected[rank].add(flood_line(rank, i));
        }
        EXPECT_EQ(counts[rank], expected_counts[rank]) << "lines of node " << rank;
        EXPECT_EQ(got[rank].value, expected[rank].value) << "checksum of node " << rank;
    }
    EXPECT_EQ(bad, 0) << "lines that are not the next whole line of their node";
    long max_rss_kib = usage.ru_maxrss;
    std::printf("[ measured ] flood: %ld bytes on stdout, %ld + %ld lines, launcher peak RSS "
                "%ld KiB\n",
                bytes, counts[0], counts[1], max_rss_kib);
    if (!sanitized) {
        EXPECT_LT(max_rss_kib, 30 * 1024) << "peak RSS of the launcher (and what it waited for)";
    }
    expect_nothing_left();
}

// 100 launches of two local nodes in a row: each succeeds with both nodes' lines and the summary,
// leaves none of its processes alive (each node's torchrun, recorded by PID, and its process
// group), and hands the nodes no descriptor but stdin, stdout and stderr.
TEST_F(RunLaunch, AHundredShortLaunchesOfTwoNodesLeaveNothingBehind) {
    two_local_nodes();
    behave("all", "ls -l /proc/self/fd >\"$record/$rank.fds\"\necho \"node $rank\"\n");
    const std::set<int> allowed = inheritable_fds();
    const int launches = 100;
    int succeeded = 0;
    for (int i = 0; i < launches; ++i) {
        SCOPED_TRACE("launch " + std::to_string(i));
        std::filesystem::remove_all(m_dir / "record");
        std::filesystem::create_directories(m_dir / "record");
        RunResult result =
            run_colossalai_run({"--hostfile", "hosts", "--nproc_per_node", "1", "t.py"});
        EXPECT_EQ(result.exit_code, 0);
        EXPECT_EQ(result.err, summary_block({"localhost: success", "127.0.0.1: success"}));
        std::vector<std::string> out = lines_of(result.out);
        std::sort(out.begin(), out.end());
        EXPECT_EQ(out, std::vector<std::string>({"127.0.0.1: node 1", "localhost: node 0"}));
        for (int rank : {0, 1}) {
            pid_t pid = recorded_pid(rank);
            ASSERT_GT(pid, 0) << "node " << rank << " did not start";
            EXPECT_EQ(leaked_fds(read_file(recorded(rank, "fds")), allowed), "") << "node " << rank;
            EXPECT_TRUE(eventually(
                [&] { return !process_alive(pid) && process_group_members(pid).empty(); }, 20s))
                << "node " << rank << ": process " << pid << " or its group left";
        }
        if (HasFailure()) {
            break;
        }
        ++succeeded;
    }
    std::printf("[ measured ] %d of %d launches of two local nodes clean\n", succeeded, launches);
    EXPECT_EQ(succeeded, launches);
    expect_nothing_left();
}

// The descriptors a valgrind --track-fds log shows open at exit that are neither standard, nor
// inherited from the test (its runner's descriptors, valgrind's log), nor a guardian's own watch
// pipe (held until it exits, by design): each as valgrind describes it.
std::string unexpected_open_fds(const std::string& log) {
    std::string unexpected;
    std::vector<std::string> lines = lines_of(log);
    for (size_t i = 0; i < lines.size(); ++i) {
        size_t at = lines[i].find("Open file descriptor ");
        if (at == std::string::npos) {
            continue;
        }
        int fd = std::stoi(lines[i].substr(at + 21));
        std::string next = i + 1 < lines.size() ? lines[i + 1] : "";
        std::string after = i + 2 < lines.size() ? lines[i + 2] : "";
        bool inherited = next.find("<inherited from parent>") != std::string::npos;
        bool watch_pipe = fd == 3 && after.find("spawn_guardian") != std::string::npos;
        if (fd > 2 && !inherited && !watch_pipe) {
            unexpected += lines[i] + "\n" + next + "\n";
        }
    }
    return unexpected;
}

// One launch of two local nodes under valgrind's memcheck: no invalid access, no leak, and at exit
// no descriptor open but the three standard ones. Forked helpers (such as the guardian of the
// local nodes) run under valgrind too and are held to the same rules; exec'd programs are not
// traced.
TEST_F(RunLaunch, OneLaunchUnderValgrindLeaksNoDescriptorAndNoMemory) {
    if (sanitized) {
        GTEST_SKIP() << "a sanitizer build cannot run under valgrind";
    }
    const std::filesystem::path valgrind = "/usr/bin/valgrind";
    if (!std::filesystem::exists(valgrind)) {
        GTEST_SKIP() << "valgrind is not installed (.ci/packages: test valgrind)";
    }
    two_local_nodes();
    behave("all", "echo \"node $rank\"\n");
    std::filesystem::create_directories(m_dir / "valgrind");
    RunOptions options;
    options.cwd = job();
    options.env = launcher_env();
    Words argv = {valgrind.string(),
                  "--track-fds=yes",
                  "--leak-check=full",
                  "--error-exitcode=99",
                  "--log-file=" + (m_dir / "valgrind/%p").string(),
                  binary().string(),
                  "run",
                  "--no-rendezvous-check", // as two_local_nodes() launches
                  "--hostfile",
                  "hosts",
                  "--nproc_per_node",
                  "1",
                  "t.py"};
    Background launcher(argv, options, m_dir / "launcher.out", m_dir / "launcher.err");
    std::optional<int> status = launcher.wait(180s);
    ASSERT_TRUE(status.has_value()) << "the launcher did not end within 180 s under valgrind";
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << "status " << *status << "\n"
                                                                 << launcher_err();
    std::vector<std::string> out = lines_of(launcher_out());
    std::sort(out.begin(), out.end());
    EXPECT_EQ(out, std::vector<std::string>({"127.0.0.1: node 1", "localhost: node 0"}));
    EXPECT_EQ(launcher_err(), summary_block({"localhost: success", "127.0.0.1: success"}));
    // One log per process that valgrind ran to its end: the launcher and the guardians it forks.
    // A forked child that exec'd a node left a log with only valgrind's header.
    int checked = 0;
    bool launcher_checked = false;
    for (const auto& entry : std::filesystem::directory_iterator(m_dir / "valgrind")) {
        std::string log = read_file(entry.path());
        if (log.find("ERROR SUMMARY:") == std::string::npos) {
            continue;
        }
        bool main = entry.path().filename() == std::to_string(launcher.pid());
        launcher_checked = launcher_checked || main;
        ++checked;
        SCOPED_TRACE(main ? "the launcher" : "forked process " + entry.path().filename().string());
        EXPECT_NE(log.find("ERROR SUMMARY: 0 errors from 0 contexts"), std::string::npos) << log;
        EXPECT_NE(log.find("definitely lost: 0 bytes in 0 blocks"), std::string::npos) << log;
        EXPECT_NE(log.find("possibly lost: 0 bytes in 0 blocks"), std::string::npos) << log;
        EXPECT_EQ(unexpected_open_fds(log), "") << log;
    }
    std::printf("[ measured ] valgrind: %d processes checked (the launcher and its guardians)\n",
                checked);
    EXPECT_TRUE(launcher_checked) << "no complete valgrind log of the launcher";
    expect_nothing_left();
}

} // namespace
} // namespace colossalai::test
