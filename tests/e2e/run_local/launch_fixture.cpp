#include "launch_fixture.hpp"

#include <signal.h>

#include <algorithm>
#include <sstream>

namespace colossalai::test {

using namespace std::chrono_literals;

RunLaunch::Words RunLaunch::recorded_words(int rank, const std::string& what) const {
    std::string text = read_file(recorded(rank, what));
    Words words;
    size_t start = 0;
    for (size_t end = text.find('\0'); end != std::string::npos; end = text.find('\0', start)) {
        words.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    EXPECT_EQ(start, text.size()) << "record " << what << " does not end in NUL";
    return words;
}

pid_t RunLaunch::recorded_pid(int rank) const {
    std::string text = read_file(recorded(rank, "pid"));
    return text.empty() ? -1 : std::stoi(text);
}

std::vector<pid_t> RunLaunch::job_pids(int rank) const {
    std::vector<pid_t> pids = {recorded_pid(rank)};
    for (const std::string& line : lines_of(read_file(recorded(rank, "children")))) {
        pids.push_back(std::stoi(line));
    }
    return pids;
}

bool RunLaunch::wait_for(int rank, const std::string& what) const {
    return eventually([&] { return std::filesystem::exists(recorded(rank, what)); }, 20s);
}

bool RunLaunch::all_wait_for(int count, const std::string& what) const {
    for (int rank = 0; rank < count; ++rank) {
        if (!wait_for(rank, what)) {
            return false;
        }
    }
    return true;
}

std::unique_ptr<Background> RunLaunch::start_launcher(const Words& args) const {
    RunOptions options;
    options.cwd = job();
    options.env = launcher_env();
    Words argv = {binary().string(), "run"};
    argv.insert(argv.end(), m_launcher_options.begin(), m_launcher_options.end());
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<Background>(argv, options, m_dir / "launcher.out",
                                        m_dir / "launcher.err");
}

void RunLaunch::TearDown() {
    for (pid_t pid : job_processes()) {
        ::kill(pid, SIGKILL);
    }
}

std::vector<pid_t> RunLaunch::job_processes() const {
    return processes_with_environment("FAKE_TORCHRUN=" + fake_torchrun().string());
}

void RunLaunch::expect_nothing_left() const {
    EXPECT_TRUE(eventually([&] { return job_processes().empty(); }, 20s))
        << job_processes().size() << " processes of the job left";
}

void RunLaunch::expect_job_gone(int rank, size_t processes) const {
    std::vector<pid_t> pids = job_pids(rank);
    ASSERT_GT(pids[0], 0) << "node " << rank << " never started";
    EXPECT_EQ(pids.size(), processes) << "node " << rank;
    auto gone = [&] {
        return process_group_members(pids[0]).empty() &&
               std::none_of(pids.begin(), pids.end(), process_alive);
    };
    if (!eventually(gone, 20s)) {
        for (pid_t pid : pids) {
            EXPECT_FALSE(process_alive(pid)) << "node " << rank << ": process " << pid;
        }
        EXPECT_EQ(process_group_members(pids[0]).size(), 0u)
            << "node " << rank << ": live members in its process group " << pids[0];
    }
}

std::vector<std::string> torchrun_flags(int nproc, int nodes, int rank, const std::string& master) {
    return {"--nproc_per_node=" + std::to_string(nproc), "--nnodes=" + std::to_string(nodes),
            "--node_rank=" + std::to_string(rank), "--master_addr=" + master,
            "--master_port=29500"};
}

} // namespace colossalai::test
