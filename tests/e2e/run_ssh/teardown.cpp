#include "teardown.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace colossalai::test {

namespace {

using namespace std::chrono_literals;

} // namespace

void SshTeardown::SetUp() {
    SharedSshCluster<2>::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
        return;
    }
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_marker = std::string("cai-teardown-") + info->name() + "-" + std::to_string(::getpid());
    install_fake_torchrun(m_dir.path());
    write_file(m_dir / "job/train.py", "");
}

void SshTeardown::TearDown() {
    if (m_marker.empty()) {
        return;
    }
    for (const auto& [host, pid] : job_processes()) {
        ::kill(pid, SIGKILL);
    }
}

void SshTeardown::behave(const std::string& rank, const std::string& script) const {
    write_file(m_dir / "behave" / (rank + ".sh"), script);
}

void SshTeardown::release(const std::string& name) const {
    write_file(m_dir / "release" / name, "");
}

bool SshTeardown::ready(int rank) const {
    return eventually(
        [&] {
            return std::filesystem::exists(m_dir / "record" / (std::to_string(rank) + ".ready"));
        },
        30s);
}

std::unique_ptr<Background> SshTeardown::start_launcher(const Words& args,
                                                        const std::filesystem::path& home) const {
    Words argv{binary().string(), "run", "--host", "node1,node2", "--nproc_per_node", "1"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"train.py", m_marker});
    RunOptions options = cluster().client_options();
    (*options.env)["PATH"] = (m_dir / "bin").string() + ":" + (*options.env)["PATH"];
    options.cwd = m_dir / "job";
    return std::make_unique<Background>(cluster().client_command(argv, home), options,
                                        m_dir / "launcher.out", m_dir / "launcher.err");
}

bool SshTeardown::launcher_said(const std::string& text, std::chrono::milliseconds timeout) const {
    return eventually([&] { return launcher_err().find(text) != std::string::npos; }, timeout);
}

int SshTeardown::exit_status(Background& launcher, std::chrono::milliseconds timeout) {
    return exit_code_of(launcher, timeout);
}

std::vector<std::pair<int, pid_t>> SshTeardown::job_processes() const {
    return cluster().processes_with_marker(m_marker);
}

void SshTeardown::expect_no_job_left(std::chrono::milliseconds timeout) const {
    cluster().expect_no_process_with_marker(m_marker, timeout);
}

} // namespace colossalai::test
